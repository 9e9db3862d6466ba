import { NEED_FIELD, SHORT_INT, type NativeConverter, type SourceColumn } from './bind-rules.js';
import type { ColumnInfo } from './types.js';

/** A date and time without a zone, as text sources and MySQL DATETIME give it; group 1: the fraction. */
const DATETIME = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.(\d*?)0*)?$/;

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
  text(s: string): unknown;
  json(doc: string): unknown;
  temporal(s: string): unknown;
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
    return (v) => {
      if (loose) {
        if (typeof v !== 'bigint') return NEED_FIELD;
        const n = Number(v);
        return n >= lo && n <= hi && Number.isSafeInteger(n) ? out.int(String(v)) : NEED_FIELD;
      }
      if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) && v >= lo && v <= hi ? out.int(String(v)) : NEED_FIELD;
      if (typeof v !== 'string' || !SHORT_INT.test(v)) return NEED_FIELD;
      const n = Number(v);
      return n >= lo && n <= hi ? out.int(v) : NEED_FIELD;
    };
  }
  if (t !== 'text' && t !== 'uuid' && !(!loose && !o.rfc3339 && t === 'timestamp' && (col.type === 'timestamp' || col.type === 'timestamptz'))) return undefined;
  if (col.type === 'text' && col.maxLength === undefined && col.maxBytes === undefined && !col.labels)
    return (v) => (typeof v === 'string' && (out.textNul || !v.includes('\u0000')) ? out.text(v) : NEED_FIELD);
  // The target's own JSON parser is the check (a batch it refuses is written again as messages, whose converter names the row).
  if (col.type === 'json' && o.serverChecks && out.serverParsesJson && t === 'text') return (v) => (typeof v === 'string' ? out.json(v) : NEED_FIELD);
  if (col.type === 'timestamp' || col.type === 'timestamptz') {
    const digits = col.fraction ?? 6;
    return (v) => {
      if (typeof v !== 'string') return NEED_FIELD;
      const m = DATETIME.exec(v);
      return m && (m[1] === undefined || m[1].length <= digits) ? out.temporal(v) : NEED_FIELD;
    };
  }
  return undefined;
}
