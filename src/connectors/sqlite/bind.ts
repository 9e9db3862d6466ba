import type { RawField } from '../../core/json-fields.js';
import { stringValue } from '../../core/json-fields.js';
import { Binder, Reject, show, type Converter, type NativeConverter, type SourceColumn } from '../sql/values/bind.js';
import { decimalText, fitsDouble, parseDecimal, type Decimal } from '../sql/values/exact.js';
import type { ColumnInfo, LogicalType } from '../sql/types.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A number as SQLite stores it: INTEGER when integral and within 64 bits, REAL when a double holds it exactly. */
function sqliteNumber(d: Decimal, text: string, what: string): bigint | number {
  if (d.frac === '') {
    const v = BigInt(decimalText(d));
    if (v >= INT64_MIN && v <= INT64_MAX) return v;
  }
  if (fitsDouble(d)) return Number(decimalText(d));
  throw new Reject(`is ${show(text)}: SQLite would keep it as a REAL and round it (${what})`);
}

/**
 * SQLite: values keep their storage class. A loose source (SQLite itself) is bound as read, so a
 * copy between tables of the same shape is exact whatever the data; a column without a declared type
 * takes each value in its natural class (integer, real, text, blob); typed columns get numbers as
 * INTEGER/REAL and reject what SQLite would store as NULL (NaN) or round.
 */
export class SqliteBinder extends Binder {
  override readonly floatNaN = false;
  override readonly holds = { decimalSpecials: false, dateInfinity: false, zeroDates: false, bcDates: false, negativeZero: false, untyped: true, invalidEnum: false };

  override compile(col: ColumnInfo, src?: SourceColumn): Converter {
    if (src?.loose) return (_f, native) => (native === undefined || native === null ? null : native);
    if (col.affinity === 'blob' && col.dbType === '') return (f) => natural(f, src?.type);
    return super.compile(col, src);
  }

  /** An untyped column keeps each value's own class (natural): no shortcut past compile's rule. */
  override nativeConverter(col: ColumnInfo, src?: SourceColumn, o?: Parameters<Binder['nativeConverter']>[2]): NativeConverter | undefined {
    return col.affinity === 'blob' && col.dbType === '' ? undefined : super.nativeConverter(col, src, o);
  }

  protected override outBool(v: boolean): unknown {
    return v ? 1n : 0n;
  }

  protected override outInt(text: string, col: ColumnInfo): unknown {
    const v = BigInt(text);
    if (v < INT64_MIN || v > INT64_MAX) throw new Reject(`is ${text}, beyond SQLite's 64-bit integers (${col.dbType || 'no declared type'})`);
    return v;
  }

  protected override outDecimal(text: string, d: Decimal | undefined, col: ColumnInfo): unknown {
    if (!d) throw new Reject(`is ${text}, which SQLite cannot store`);
    return sqliteNumber(d, text, `${col.dbType} has NUMERIC affinity`);
  }

  protected override outFloat(text: string): unknown {
    return Number(text);
  }

  /** SQLite keeps dates as text or as numbers (Unix time, Julian days): a number stays a number. */
  protected override temporal(f: RawField, fam: LogicalType | undefined, col: ColumnInfo): unknown {
    if (f.kind === 'number') return sqliteNumber(parseDecimal(f.raw)!, f.raw, `${col.dbType} holds numbers as REAL`);
    return super.temporal(f, fam, col);
  }

  protected override outJson(doc: string, col: ColumnInfo): unknown {
    // A JSON column with NUMERIC affinity turns a top-level number into INTEGER/REAL: its text (1.0) would change.
    if (col.affinity !== 'text' && col.affinity !== 'blob') {
      const d = parseDecimal(doc.trim());
      if (d && decimalText(d) !== doc) throw new Reject(`is the JSON number ${show(doc)}: SQLite's ${col.dbType} column (NUMERIC affinity) would store it as ${decimalText(d)}; declare it TEXT`);
    }
    return doc;
  }
}

/** A value in its own storage class, for columns without a declared type (they convert nothing). */
function natural(f: RawField, fam: LogicalType | undefined): unknown {
  switch (f.kind) {
    case 'null':
      return null;
    case 'true':
      return 1n;
    case 'false':
      return 0n;
    case 'object':
    case 'array':
      return f.raw;
    case 'number': {
      const d = parseDecimal(f.raw)!;
      if (fam === 'float') return Number(f.raw);
      try {
        return sqliteNumber(d, f.raw, 'no declared type');
      } catch {
        return f.raw;
      }
    }
    case 'string': {
      const s = stringValue(f);
      if (fam === 'bytes') return Buffer.from(s, 'base64');
      if (fam === 'json') return f.raw;
      if (fam === 'decimal' || fam === 'float') {
        const d = parseDecimal(s);
        if (d && (fam === 'float' || fitsDouble(d))) return fam === 'float' ? Number(s) : sqliteNumber(d, s, 'no declared type');
      }
      if ((fam === 'int' || fam === 'bigint') && /^-?\d+$/.test(s)) return sqliteNumber(parseDecimal(s)!, s, 'beyond 64-bit integers');
      return s;
    }
  }
}
