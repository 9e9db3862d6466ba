import { NEED_FIELD, SHORT_INT, type NativeConverter, type SourceColumn } from './bind-rules.js';
import { parseDecimal, type Decimal } from './exact.js';
import type { ColumnInfo } from '../types.js';

const DIGIT_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

/**
 * A date and time without a zone, as text sources and MySQL DATETIME give it
 * (`YYYY-MM-DD[ T]HH:MM:SS[.fff…]`): the digits of its fraction without trailing zeros, or -1 for
 * any other text. Read by character codes: the pattern it replaced cost 0.08 s per million values.
 * (PostgreSQL's binary encoder reads the same spelling into microseconds in one pass of its own,
 * zonelessMicros: checking it here first cost a 1M-row copy 0.2 s of CPU.)
 */
export function zonelessFraction(v: string): number {
  const n = v.length;
  if (n < 19 || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return -1;
  const sep = v.charCodeAt(10);
  if (sep !== 32 && sep !== 84) return -1;
  for (const i of DIGIT_AT) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  if (n === 19) return 0;
  if (v.charCodeAt(19) !== 46) return -1;
  let last = 19;
  for (let i = 20; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    if (c !== 48) last = i;
  }
  return last - 19;
}

export interface NativeOptions {
  /** JSON may be left to a database that parses it (rows without a message). */
  serverChecks?: boolean;
  /** The source's timestamp columns become RFC 3339 text in fields (timestamps=rfc3339). */
  rfc3339?: boolean;
}

/** What the target kind does with a value the shortcut took (its Binder's out* hooks and flags). */
export interface NativeOut {
  textNul: boolean;
  serverParsesJson: boolean;
  int(text: string): unknown;
  /** The kind takes a safe integer as the number itself (what `int` would make of its digits): no text made and read back. */
  intsAsNumbers?: boolean;
  text(s: string): unknown;
  json(doc: string): unknown;
  temporal(s: string): unknown;
  /** The zone-less spelling with at most 6 fraction digits read by the kind once (checked and converted), or NEED_FIELD. */
  zonelessTemporal?: (s: string) => unknown;
  decimal(text: string, d: Decimal): unknown;
}

/**
 * For the commonest pairs of kinds, the driver's value is the field: a safe integer into an
 * integer column in range; a string of a text source into unbounded text, into JSON on a kind
 * that parses it, or a zone-less date and time (text, MySQL DATETIME) into a timestamp that keeps
 * its fraction. Such values are converted without building a field (what the full converter would
 * build, then check the same way); any other value answers NEED_FIELD and goes the full way,
 * which also names rejections. `serverChecks`: JSON may be left to a database that parses it (rows
 * without a message: a batch it refuses is written again as messages, which name the field).
 * `rfc3339`: the source's timestamp columns become RFC 3339 text in fields, so theirs go the full way.
 */
export function nativeConverterOf(col: ColumnInfo, src: SourceColumn | undefined, o: NativeOptions, out: NativeOut): NativeConverter | undefined {
  if (!src || src.type === undefined) return undefined;
  const t = src.type;
  // A loose source (SQLite) gives any storage class in any column: only the classes that mean the declared family are taken.
  const loose = src.loose;
  if ((col.type === 'int' || col.type === 'bigint') && (t === 'int' || t === 'bigint')) {
    const lo = col.min === undefined || col.min.length > 16 ? -Infinity : Number(col.min);
    const hi = col.max === undefined || col.max.length > 15 ? Infinity : Number(col.max);
    const safe = out.intsAsNumbers === true ? (n: number): unknown => n : (n: number): unknown => out.int(String(n));
    return (v) => {
      if (loose) {
        if (typeof v !== 'bigint') return NEED_FIELD;
        const n = Number(v);
        return n >= lo && n <= hi && Number.isSafeInteger(n) ? safe(n) : NEED_FIELD;
      }
      if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) && v >= lo && v <= hi ? safe(v) : NEED_FIELD;
      if (typeof v !== 'string' || !SHORT_INT.test(v)) return NEED_FIELD;
      const n = Number(v);
      return n >= lo && n <= hi ? out.int(v) : NEED_FIELD;
    };
  }
  // A 4-byte float (MySQL FLOAT, read widened to a double) is written as its own shortest digits: left to the full way.
  if (t === 'float' && src.col.floatBits !== 24 && col.type === 'decimal' && col.precision !== undefined && col.scale !== undefined && col.scale <= 15)
    return doubleToDecimal(col.precision, col.scale, out);
  if (t === 'decimal' && !loose && col.type === 'decimal') return decimalText(col, out);
  if (t !== 'text' && t !== 'uuid' && !(!loose && !o.rfc3339 && t === 'timestamp' && (col.type === 'timestamp' || col.type === 'timestamptz'))) return undefined;
  if (col.type === 'text' && col.maxLength === undefined && col.maxBytes === undefined && !col.labels)
    return (v) => (typeof v === 'string' && (out.textNul || !v.includes('\u0000')) ? out.text(v) : NEED_FIELD);
  // The target's own JSON parser is the check (a batch it refuses is written again as messages, whose converter names the row).
  if (col.type === 'json' && o.serverChecks && out.serverParsesJson && t === 'text') return (v) => (typeof v === 'string' ? out.json(v) : NEED_FIELD);
  if (col.type === 'timestamp' || col.type === 'timestamptz') {
    const digits = col.fraction ?? 6;
    // A column keeping 6 digits takes what the kind's one reading takes: no checking pass before it.
    const once = digits >= 6 ? out.zonelessTemporal : undefined;
    if (once) return (v) => (typeof v === 'string' ? once(v) : NEED_FIELD);
    return (v) => {
      if (typeof v !== 'string') return NEED_FIELD;
      const f = zonelessFraction(v);
      return f >= 0 && f <= digits ? out.temporal(v) : NEED_FIELD;
    };
  }
  return undefined;
}

/**
 * Decimal text as a typed source's driver gives it (`-123.4500`, MySQL/MariaDB DECIMAL) into a
 * decimal column: parsed and checked as the full way does (parseDecimal), without building its
 * field. Digits the column would round or cannot hold, and what is not a number, go the full way,
 * which rejects them by name.
 */
function decimalText(col: ColumnInfo, out: NativeOut): NativeConverter {
  const maxFrac = col.precision !== undefined && col.scale !== undefined ? col.scale : Infinity;
  const maxInt = col.precision !== undefined ? col.precision - (col.scale ?? 0) : Infinity;
  return (v) => {
    const d = typeof v === 'string' ? parseDecimal(v) : undefined;
    return d && d.frac.length <= maxFrac && d.int.length <= maxInt ? out.decimal(v as string, d) : NEED_FIELD;
  };
}

/**
 * A double into a decimal column of scale `scale`, as the digits the full way writes (the
 * shortest text that reads back as the same double) without rendering and parsing that text:
 * n = round(v × 10^scale) is exact when n / 10^scale gives v back and |n| < 2^52 (the doubles
 * there are closer together than 10^-scale, so no other decimal of that scale reads back as v,
 * and the shortest text is that decimal). Anything else (-0, more digits, too large) goes the
 * full way, which rejects what the column would round.
 */
function doubleToDecimal(precision: number, scale: number, out: NativeOut): NativeConverter {
  const pow = 10 ** scale;
  const maxInt = precision - scale;
  return (v) => {
    if (typeof v !== 'number') return NEED_FIELD;
    const n = Math.round(v * pow);
    if (!(n < 2 ** 52 && n > -(2 ** 52)) || n / pow !== v || Object.is(v, -0)) return NEED_FIELD;
    if (n === 0) return out.decimal('0', { neg: false, int: '', frac: '' });
    // Below 1e-6 the full way spells the value with an exponent: left to it, so both spell it alike.
    if (v < 1e-6 && v > -1e-6) return NEED_FIELD;
    const digits = String(Math.abs(n));
    const cut = digits.length - scale;
    const int = cut > 0 ? digits.slice(0, cut) : '';
    if (int.length > maxInt) return NEED_FIELD;
    let end = digits.length;
    while (end > Math.max(cut, 0) && digits.charCodeAt(end - 1) === 48) end--;
    const frac = cut >= 0 ? digits.slice(cut, end) : digits.slice(0, end).padStart(end - cut, '0');
    const neg = n < 0;
    const text = `${neg ? '-' : ''}${int || '0'}${frac ? `.${frac}` : ''}`;
    return out.decimal(text, { neg, int, frac });
  };
}
