import { parseJsonExact, isJson } from '../../../core/json-exact.js';
import { stringValue, type RawField } from '../../../core/json-fields.js';
import { DriverValues } from './bind-driver-values.js';
import { BIT_STRING, bitsToBytes } from './bit-strings.js';
import { BASE64, familyOf, FALSE, FRACTION, type KindHolds, type NativeConverter, OFFSET, PASS_THROUGH, reject, sameType, SHORT_INT, show, type SourceColumn, TRUE, type Converter, type Typed, utcText } from './bind-rules.js';
import { nativeConverterOf, type NativeOptions } from './native-converter.js';
import { decimalText, fitsDouble, fitsFloat32, integerInRange, parseDecimal, specialNumber } from './exact.js';
import type { ColumnInfo, LogicalType } from '../types.js';

export { NEED_FIELD, PASS_THROUGH, Reject, show, utcText, type Converter, type KindHolds, type NativeConverter, type SourceColumn } from './bind-rules.js';

/**
 * Binds payload fields into typed columns so that each value lands exactly or is rejected with a
 * reason: what a database would round, truncate or reinterpret silently is checked here first.
 * Kinds override the `out*` hooks (DriverValues: how their driver wants a value) and the capability flags.
 */
/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export class Binder extends DriverValues {
  /** NaN and ±Infinity exist in the kind's floating-point columns. */
  readonly floatNaN: boolean = true;
  readonly floatInfinity: boolean = true;
  /** Text columns can hold U+0000. */
  readonly textNul: boolean = true;
  /** The database parses JSON text bound into a JSON column, and refuses what is not JSON (the row path leaves the check to it). */
  readonly serverParsesJson: boolean = false;
  /** A safe integer into an integer column goes as the number (its encoders and driver take numbers), not as its digits. */
  readonly intsAsNumbers: boolean = false;
  /** What else the kind's columns can hold, beyond their nominal type (for the dry run's verdicts). */
  readonly holds: KindHolds = { decimalSpecials: false, dateInfinity: false, zeroDates: false, bcDates: false, negativeZero: true, untyped: false, invalidEnum: false };

  /**
   * For the dry run: what spatial column `col` of this kind (variant `spatial`, reading text) makes
   * of the bytes of source column `src`, which a MySQL/MariaDB spatial column gives. Nothing, unless the kind says.
   */
  spatialVerdict(_col: ColumnInfo, _src: ColumnInfo): { lossy: string[]; rejects: string[] } {
    return { lossy: [], rejects: [] };
  }

  /** Whether a column of this kind of type `a` holds exactly the values of one of type `b` (their driver values pass unchanged). */
  protected sameType(a: ColumnInfo, b: ColumnInfo): boolean {
    return sameType(a, b);
  }

  /** Compiles the converter of one column; `src` is the source column when the source is a typed table. */
  compile(col: ColumnInfo, src?: SourceColumn): Converter {
    // The same type on the same kind of database: the driver's own value goes back unchanged (no checks to make).
    if (src && !src.loose && src.binder.constructor === this.constructor && this.sameType(src.col, col)) return PASS_THROUGH;
    const typed = this.typed(col);
    // A JSON `null` document (a json column holding null) is not SQL NULL: the source's raw value tells them apart.
    return (f, native) => (f.kind === 'null' && (native === undefined || native === null) ? null : typed(f, familyOf(native, src), native));
  }

  /** The shortcut past building a field for common pairs of kinds (see nativeConverterOf). */
  nativeConverter(col: ColumnInfo, src?: SourceColumn, o: NativeOptions = {}): NativeConverter | undefined {
    return nativeConverterOf(col, src, o, {
      textNul: this.textNul,
      serverParsesJson: this.serverParsesJson,
      int: (text) => this.outInt(text, col),
      intsAsNumbers: this.intsAsNumbers,
      text: (s) => this.outText(s, col),
      json: (doc) => this.outJson(doc, col),
      temporal: (s) => this.outTemporal(s, col),
      zonelessTemporal: this.zonelessTemporal(col),
      decimal: (text, d) => this.outDecimal(text, d, col),
    });
  }

  protected typed(col: ColumnInfo): Typed {
    switch (col.type) {
      case 'bool':
        return (f) => this.bool(f, col);
      case 'int':
      case 'bigint': {
        // Most integers are short: checked against the bounds as doubles (exact below 2^53) without parsing.
        const lo = col.min === undefined || col.min.length > 16 ? -Infinity : Number(col.min);
        const hi = col.max === undefined || col.max.length > 15 ? Infinity : Number(col.max);
        return (f, fam) => {
          if (f.kind === 'number' && SHORT_INT.test(f.raw)) {
            const n = Number(f.raw);
            if (n >= lo && n <= hi) return this.outInt(f.raw, col);
          }
          return this.integer(f, fam, col);
        };
      }
      case 'decimal':
        return (f) => this.decimal(f, col);
      case 'float':
        return (f) => this.float(f, col);
      case 'json':
        return (f, fam) => this.json(f, fam, col);
      case 'bytes':
        return (f, fam) => this.bytes(f, fam, col);
      case 'date':
      case 'time':
      case 'timestamp':
      case 'timestamptz':
        return (f, fam) => this.temporal(f, fam, col);
      case 'array':
        return (f) => this.array(f, col);
      default:
        return (f, fam) => this.text(f, fam, col);
    }
  }

  protected numberText(f: RawField, col: ColumnInfo, what: string): string {
    if (f.kind === 'number') return f.raw;
    if (f.kind === 'string') return stringValue(f);
    return reject(`is a JSON ${f.kind}, not ${what} for ${col.dbType}`);
  }

  protected bool(f: RawField, col: ColumnInfo): unknown {
    if (f.kind === 'true' || f.kind === 'false') return this.outBool(f.kind === 'true', col);
    const text = this.numberText(f, col, 'a boolean');
    const word = text.toLowerCase();
    if (TRUE.has(word) || FALSE.has(word)) return this.outBool(TRUE.has(word), col);
    const d = parseDecimal(text);
    // Columns that are integers underneath (MySQL TINYINT(1), SQLite) keep any integer they can hold.
    if (d && (col.variant === 'tinybool' || col.affinity !== undefined) && integerInRange(d, col.min, col.max)) return this.outInt(decimalText(d), col);
    return reject(`is ${show(text)}, not a boolean for ${col.dbType}`);
  }

  protected integer(f: RawField, fam: LogicalType | undefined, col: ColumnInfo): unknown {
    if ((f.kind === 'true' || f.kind === 'false') && (fam === undefined || fam === 'bool')) return this.outInt(f.kind === 'true' ? '1' : '0', col);
    const text = this.numberText(f, col, 'an integer');
    const d = parseDecimal(text);
    if (!d) return reject(`is ${show(text)}, not an integer for ${col.dbType}`);
    if (d.frac !== '') return reject(`is ${show(text)}: ${col.dbType} would drop its fraction`);
    if (!integerInRange(d, col.min, col.max)) return reject(`is ${show(text)}, out of range for ${col.dbType}`);
    return this.outInt(decimalText(d), col);
  }

  /** Whether a decimal column takes NaN / ±Infinity (PostgreSQL numeric). */
  protected decimalSpecial(_special: string, _col: ColumnInfo): boolean {
    return false;
  }

  protected decimal(f: RawField, col: ColumnInfo): unknown {
    if (f.kind === 'true' || f.kind === 'false') {
      const digit = f.kind === 'true' ? '1' : '0';
      return this.outDecimal(digit, parseDecimal(digit)!, col);
    }
    const text = this.numberText(f, col, 'a number');
    const special = specialNumber(text);
    if (special) return this.decimalSpecial(special, col) ? this.outDecimal(special, undefined, col) : reject(`is ${special}, which ${col.dbType} cannot hold`);
    const d = parseDecimal(text);
    if (!d) return reject(`is ${show(text)}, not a number for ${col.dbType}`);
    if (col.scale !== undefined && col.precision !== undefined && d.frac.length > col.scale)
      return reject(`is ${show(text)}: ${col.dbType} keeps ${col.scale} fractional digits and would round it`);
    if (col.precision !== undefined && d.int.length > col.precision - (col.scale ?? 0)) return reject(`is ${show(text)}, too large for ${col.dbType}`);
    return this.outDecimal(text, d, col);
  }

  protected float(f: RawField, col: ColumnInfo): unknown {
    if (f.kind === 'true' || f.kind === 'false') return this.outFloat(f.kind === 'true' ? '1' : '0', col);
    const text = this.numberText(f, col, 'a number');
    const special = specialNumber(text);
    if (special) {
      const ok = special === 'NaN' ? this.floatNaN : this.floatInfinity;
      return ok ? this.outFloat(special, col) : reject(`is ${special}, which ${col.dbType} cannot hold`);
    }
    const d = parseDecimal(text);
    if (!d) return reject(`is ${show(text)}, not a number for ${col.dbType}`);
    if (!(col.floatBits === 24 ? fitsFloat32(d) : fitsDouble(d))) return reject(`is ${show(text)}: ${col.dbType} would round it (more digits than it keeps)`);
    if (/^-0*\.?0*(e|$)/i.test(text) && !this.holds.negativeZero && col.affinity !== 'blob') return reject(`is -0: ${col.dbType} does not keep the sign of zero`);
    return this.outFloat(text, col);
  }

  protected text(f: RawField, fam: LogicalType | undefined, col: ColumnInfo): unknown {
    let s: string;
    if (f.kind === 'string') s = fam === 'json' ? f.raw : stringValue(f);
    else if (f.kind === 'number' || f.kind === 'object' || f.kind === 'array') s = f.raw;
    else s = f.kind;
    if (!this.textNul && s.includes('\u0000')) return reject(`holds a NUL character (\\u0000), which ${col.dbType} cannot store`);
    // Only a JSON escape makes one: PostgreSQL and MariaDB stored U+FFFD for it, SQLite bytes that are not UTF-8.
    const lone = f.kind === 'string' && f.raw.includes('\\u') ? LONE_SURROGATE.exec(s)?.[0] : undefined;
    if (lone) return reject(`holds half of a UTF-16 surrogate pair (\\u${lone.charCodeAt(0).toString(16)}), which no UTF-8 text can hold: the database would store U+FFFD or bytes that are not UTF-8`);
    if (col.maxLength !== undefined && s.length > col.maxLength && [...s].length > col.maxLength) return reject(`is ${[...s].length} characters, longer than ${col.dbType}`);
    if (col.maxBytes !== undefined && s.length * 3 > col.maxBytes && Buffer.byteLength(s) > col.maxBytes) return reject(`is ${Buffer.byteLength(s)} bytes, longer than ${col.dbType} holds`);
    if (col.labels && col.variant === 'enum' && !col.labels.includes(s)) return reject(`is ${show(s)}, not one of the values of ${col.dbType}`);
    if (col.labels && col.variant === 'set') this.checkSet(s, col);
    return this.outText(s, col);
  }

  /** A SET value must be members in the column's order, each once: the database would reorder or drop them. */
  private checkSet(s: string, col: ColumnInfo): void {
    if (s === '') return;
    let last = -1;
    for (const part of s.split(',')) {
      const i = col.labels!.indexOf(part);
      if (i < 0) reject(`holds ${show(part)}, not a member of ${col.dbType}`);
      if (i <= last) reject(`is ${show(s)}: ${col.dbType} would reorder or merge its members`);
      last = i;
    }
  }

  protected json(f: RawField, fam: LogicalType | undefined, col: ColumnInfo): unknown {
    let doc: string;
    if (fam === undefined || fam === 'json' || fam === 'array') doc = f.raw;
    else if (f.kind === 'string' && (fam === 'decimal' || fam === 'float')) {
      const t = stringValue(f);
      if (!parseDecimal(t)) return reject(`is ${show(t)}, which JSON cannot hold as a number`);
      doc = t;
    } else if (f.kind === 'string' && fam !== 'bytes') {
      // Text into a JSON column is parsed as JSON, as the databases' own casts do.
      doc = stringValue(f);
      if (!isJson(doc)) return reject(`is text that is not JSON (${show(doc)}), for ${col.dbType}`);
    } else doc = f.raw;
    return this.outJson(doc, col);
  }

  protected bytes(f: RawField, fam: LogicalType | undefined, col: ColumnInfo): unknown {
    if (f.kind !== 'string') return reject(`is a JSON ${f.kind}; ${col.dbType} takes base64 text`);
    const s = stringValue(f);
    // A bit string of a typed source (PostgreSQL bit/varbit) into MySQL BIT: its bits, not its characters' bytes.
    if (col.variant === 'bit' && fam === 'text' && BIT_STRING.test(s)) {
      const bits = bitsToBytes(s, col.maxLength ?? 1);
      return bits ? this.outBytes(bits, col) : reject(`has more than the ${col.maxLength ?? 1} bits of ${col.dbType}`);
    }
    let b: Buffer;
    if (fam === undefined || fam === 'bytes') {
      if (!BASE64.test(s)) return reject(`is not base64 (bytes columns take base64 text): ${show(s)}`);
      b = Buffer.from(s, 'base64');
    } else b = Buffer.from(s, 'utf8');
    if (col.variant === 'bit') {
      const bits = col.maxLength ?? 1;
      const extra = b.length * 8 - bits;
      if (extra > 0 && b.subarray(0, Math.ceil(extra / 8)).some((x, i) => (i < Math.floor(extra / 8) ? x !== 0 : x >> (8 - (extra % 8)) !== 0)))
        return reject(`has more than the ${bits} bits of ${col.dbType}`);
    } else if (col.maxLength !== undefined && b.length > col.maxLength) return reject(`is ${b.length} bytes, longer than ${col.dbType}`);
    return this.outBytes(b, col);
  }

  protected temporal(f: RawField, _fam: LogicalType | undefined, col: ColumnInfo): unknown {
    if (f.kind !== 'string') return reject(`is a JSON ${f.kind}, not a date/time for ${col.dbType}`);
    let s = stringValue(f);
    const frac = FRACTION.exec(s)?.[1]?.replace(/0+$/, '') ?? '';
    if (col.fraction !== undefined && frac.length > col.fraction) return reject(`is ${show(s)}: ${col.dbType} keeps ${col.fraction} fractional digits and would round it`);
    if (OFFSET.test(s)) {
      // A zone-less column holds the instant in UTC: an offset is applied, never silently dropped.
      if (col.type === 'timestamp') {
        const utc = utcText(s);
        if (utc === s) return reject(`is ${show(s)}: its offset cannot be applied for ${col.dbType}`);
        s = utc;
      } else if (col.type === 'time' && col.variant !== 'timetz') return reject(`is ${show(s)}: ${col.dbType} has no time zone and would drop its offset`);
    }
    return this.outTemporal(s, col);
  }

  protected array(f: RawField, col: ColumnInfo): unknown {
    if (f.kind !== 'array') return reject(`is a JSON ${f.kind}, not an array for ${col.dbType}`);
    return this.outArray(parseJsonExact(f.raw), col);
  }
}

