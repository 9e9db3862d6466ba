import type { JsonNode } from '../../core/json-exact.js';
import { Binder, NEED_FIELD, PASS_THROUGH, Reject, type Converter, type SourceColumn } from '../sql/values/bind.js';
import { stringValue, type RawField } from '../../core/json-fields.js';
import { BASE64, OFFSET } from '../sql/values/bind-rules.js';
import { BIT_STRING, bytesToBits, varyingBits } from '../sql/values/bit-strings.js';
import { BOUNDS } from './array.js';
import { withUtcOffset } from './binary-times.js';
import { postgisConverter, postgisVerdict } from './postgis.js';
import type { ColumnInfo, LogicalType } from '../sql/types.js';

/** An element of a PostgreSQL array literal: numbers keep their text, strings are quoted, objects are their JSON text. */
function element(n: JsonNode): string {
  switch (n.kind) {
    case 'array':
      return '{' + n.items.map(element).join(',') + '}';
    case 'null':
      return 'NULL';
    case 'number':
      return n.raw;
    case 'true':
    case 'false':
      return n.kind;
    case 'object':
      return quoteElement(n.raw);
    case 'string':
      return quoteElement(n.value);
  }
}

const quoteElement = (s: string): string => '"' + s.replace(/[\\"]/g, (c) => '\\' + c) + '"';

const TIMES = new Set(['timestamp', 'timestamptz', 'time']);
/** A time type's declared spelling without its `(6)`: `timestamp(6) without time zone` -> `timestamp without time zone`. */
const sansPrecision = (c: ColumnInfo): string => c.dbType.toLowerCase().replace(/\s+/g, ' ').replace(/^(timestamp|time)\(6\)/, '$1');

/**
 * PostgreSQL: every value is bound as text and cast to the column's type by the server (COPY or
 * `$n::type`), so the hooks keep text. Text cannot hold NUL; numeric takes NaN, and ±Infinity
 * without a declared precision.
 */
export class PgBinder extends Binder {
  override readonly textNul = false;
  override readonly serverParsesJson = true;
  override readonly intsAsNumbers = true;
  override readonly holds = { decimalSpecials: true, dateInfinity: true, zeroDates: false, bcDates: true, negativeZero: true, untyped: false, invalidEnum: false };

  /** A PostGIS column (variant `spatial`) takes MySQL/MariaDB geometry bytes as hex EWKB (see postgisConverter). */
  override compile(col: ColumnInfo, src?: SourceColumn): Converter {
    const conv = super.compile(col, src);
    return col.variant === 'spatial' && conv !== PASS_THROUGH ? postgisConverter(conv, col, src) : conv;
  }

  /**
   * `timestamp` and `timestamp(6)` (timestamptz, time, timetz likewise) keep the same microseconds:
   * 6 is PostgreSQL's precision when none is declared. Told apart by spelling, a migration into the
   * tables bridge creates (which say `(6)`) converted every row of a table with such a column.
   */
  protected override sameType(a: ColumnInfo, b: ColumnInfo): boolean {
    if (super.sameType(a, b)) return true;
    return TIMES.has(a.type) && a.type === b.type && a.variant === b.variant && a.fraction === 6 && b.fraction === 6 && !a.labels && !b.labels && sansPrecision(a) === sansPrecision(b);
  }

  override spatialVerdict(col: ColumnInfo, src: ColumnInfo): { lossy: string[]; rejects: string[] } {
    return postgisVerdict(col, src);
  }

  protected override decimalSpecial(special: string, col: ColumnInfo): boolean {
    return special === 'NaN' || col.precision === undefined;
  }

  /**
   * bit(n)/varbit(n) take 0s and 1s, checked here so that a rejection names the field (the server's
   * own error does not); bytes (MySQL BIT) become their bits.
   */
  protected override text(f: RawField, fam: LogicalType | undefined, col: ColumnInfo): unknown {
    if (col.variant !== 'bit' || f.kind !== 'string') return super.text(f, fam, col);
    const fixed = !varyingBits(col.dbType);
    let s = stringValue(f);
    if (fam === 'bytes' || (fam === undefined && !BIT_STRING.test(s))) {
      const bits = BASE64.test(s) ? bytesToBits(Buffer.from(s, 'base64'), col.maxLength, fixed) : undefined;
      if (bits === undefined) throw new Reject(BASE64.test(s) ? `has more than the ${col.maxLength} bits of ${col.dbType}` : `is not base64 or a bit string for ${col.dbType}`);
      s = bits;
    }
    if (!BIT_STRING.test(s)) throw new Reject(`is not a bit string (0s and 1s) for ${col.dbType}`);
    if (col.maxLength !== undefined && (fixed ? s.length !== col.maxLength : s.length > col.maxLength)) throw new Reject(`has ${s.length} bits; ${col.dbType} takes ${fixed ? 'exactly' : 'at most'} ${col.maxLength}`);
    return s;
  }

  /** An array with bounds other than 1 travels as PostgreSQL's own text (see parsePgArray): the server reads it back. */
  protected override array(f: RawField, col: ColumnInfo): unknown {
    if (f.kind !== 'string') return super.array(f, col);
    const s = stringValue(f);
    return BOUNDS.test(s) && !s.includes('\u0000') ? s : super.array(f, col);
  }

  protected override outArray(node: JsonNode, col: ColumnInfo): unknown {
    if (node.kind !== 'array') throw new Reject(`is not an array for ${col.dbType}`);
    const literal = element(node);
    if (literal.includes('\u0000')) throw new Reject(`holds a NUL character (\\u0000), which ${col.dbType} cannot store`);
    return literal;
  }

  /**
   * A timestamptz value always goes with its offset: without one the server reads it in the session's
   * TimeZone (a URL may set `options=-c TimeZone=…`), which shifted MySQL TIMESTAMP instants by the
   * zone's offset and moved DATETIME values in a DST gap. A zone-less value means UTC, as it does in
   * bridge's own UTC sessions.
   */
  protected override outTemporal(s: string, col: ColumnInfo): unknown {
    if (col.type !== 'timestamptz') return s;
    // The common zone-less spelling (the binary encoder's quick reading takes it) gets its offset
    // without the patterns below: a million values through them cost 0.7 s of a copy's 3 s of CPU.
    const utc = withUtcOffset(s);
    if (utc !== undefined) return utc;
    const bc = / BC$/i.test(s);
    const core = bc ? s.slice(0, -3) : s;
    if (OFFSET.test(core) || /^[+-]?infinity$/i.test(s)) return s;
    return `${/\d:\d\d/.test(core) ? core : `${core} 00:00:00`}+00${bc ? ' BC' : ''}`;
  }

  /** timestamptz: the value with `+00`, read once (withUtcOffset), which the binary encoder then takes without reading it again. */
  protected override zonelessTemporal(col: ColumnInfo): ((s: string) => unknown) | undefined {
    return col.type === 'timestamptz' ? (s) => withUtcOffset(s) ?? NEED_FIELD : undefined;
  }

  protected override outJson(doc: string, col: ColumnInfo): unknown {
    // The pattern tells an escaped backslash before `u0000` from `\u0000`; only a document holding the text needs it.
    if (col.variant === 'jsonb' && doc.includes('\\u0000') && /(^|[^\\])(\\\\)*\\u0000/.test(doc)) throw new Reject(`holds \\u0000, which jsonb cannot store`);
    return doc;
  }
}
