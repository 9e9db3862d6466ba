import type { ColumnInfo, LogicalType } from '../sql/types.js';
import { varyingBits } from '../sql/values/bit-strings.js';
import { isPostgisType } from './postgis.js';

/** Built-in type OIDs → logical type. Unknown OIDs (enums, domains, extensions) render as text. */
const SCALARS: Record<number, LogicalType> = {
  16: 'bool',
  20: 'bigint',
  21: 'int',
  23: 'int',
  26: 'int',
  700: 'float',
  701: 'float',
  1700: 'decimal',
  17: 'bytes',
  114: 'json',
  3802: 'json',
  1082: 'date',
  1083: 'time',
  1266: 'time',
  1114: 'timestamp',
  1184: 'timestamptz',
  2950: 'uuid',
};

/** Array OID → element OID. */
const ARRAYS: Record<number, number> = {
  1000: 16,
  1016: 20,
  1005: 21,
  1007: 23,
  1028: 26,
  1021: 700,
  1022: 701,
  1231: 1700,
  199: 114,
  3807: 3802,
  1001: 17,
  1182: 1082,
  1183: 1083,
  1270: 1266,
  1115: 1114,
  1185: 1184,
  2951: 2950,
  1009: 25,
  1015: 1043,
  1014: 1042,
  1002: 18,
  1003: 19,
};

/** Whether the type of an OID is known without asking the server (see PgConnection.learnTypes). */
export const knownOid = (oid: number): boolean => SCALARS[oid] !== undefined || ARRAYS[oid] !== undefined;

/**
 * Logical type (and element type) of a PostgreSQL type OID. `arrays`: array OIDs → element OIDs the
 * server told (aclitem[], inet[], enum and domain arrays…), beyond the built-in list above.
 */
export function pgType(oid: number, arrays?: Map<number, number>): { type: LogicalType; elem?: LogicalType } {
  const s = SCALARS[oid];
  if (s) return { type: s };
  const e = ARRAYS[oid] ?? arrays?.get(oid);
  if (e !== undefined) return { type: 'array', elem: SCALARS[e] ?? 'text' };
  return { type: 'text' };
}

/** Logical type from an information_schema / format_type name (for introspected tables). */
export function pgTypeFromName(udt: string): { type: LogicalType; elem?: LogicalType } {
  if (udt.startsWith('_')) return { type: 'array', elem: pgTypeFromName(udt.slice(1)).type };
  switch (udt) {
    case 'bool':
      return { type: 'bool' };
    case 'int2':
    case 'int4':
    case 'oid':
      return { type: 'int' };
    case 'int8':
      return { type: 'bigint' };
    case 'float4':
    case 'float8':
      return { type: 'float' };
    case 'numeric':
      return { type: 'decimal' };
    case 'json':
    case 'jsonb':
      return { type: 'json' };
    case 'bytea':
      return { type: 'bytes' };
    case 'date':
      return { type: 'date' };
    case 'time':
    case 'timetz':
      return { type: 'time' };
    case 'timestamp':
      return { type: 'timestamp' };
    case 'timestamptz':
      return { type: 'timestamptz' };
    case 'uuid':
      return { type: 'uuid' };
    default:
      return { type: 'text' };
  }
}

const INT_RANGES: Record<string, [string, string]> = {
  int2: ['-32768', '32767'],
  int4: ['-2147483648', '2147483647'],
  int8: ['-9223372036854775808', '9223372036854775807'],
  oid: ['0', '4294967295'],
};

/**
 * What a column's declared type says about the values it keeps (ranges, digits, lengths), read from
 * the type name and `format_type()` (`numeric(12,2)`, `character varying(100)`, `timestamp(3) …`).
 */
export function pgAttributes(udt: string, formatted: string): Partial<ColumnInfo> {
  const base = udt.replace(/^_/, '');
  const f = formatted.toLowerCase();
  const n = /\((\d+)(?:\s*,\s*(-?\d+))?\)/.exec(f);
  const out: Partial<ColumnInfo> = {};
  const range = INT_RANGES[base];
  if (range) [out.min, out.max] = range;
  switch (base) {
    case 'numeric':
      if (n) {
        out.precision = Number(n[1]);
        out.scale = n[2] === undefined ? 0 : Number(n[2]);
      }
      break;
    case 'float4':
      out.floatBits = 24;
      break;
    case 'float8':
      out.floatBits = 53;
      break;
    case 'varchar':
      if (n) out.maxLength = Number(n[1]);
      break;
    case 'bpchar':
      if (n) Object.assign(out, { maxLength: Number(n[1]), padded: 'kept' });
      break;
    case 'timestamp':
    case 'timestamptz':
    case 'time':
    case 'timetz':
      out.fraction = n ? Number(n[1]) : 6;
      if (base === 'timetz') out.variant = 'timetz';
      break;
    case 'bit':
    case 'varbit':
      // Text of 0s and 1s; maxLength is the width in bits (bit(n): exactly n; varbit(n): at most n).
      out.variant = 'bit';
      if (n) out.maxLength = Number(n[1]);
      else if (base === 'bit') out.maxLength = 1;
      break;
    case 'interval':
      out.variant = 'interval';
      break;
    case 'jsonb':
      out.variant = 'jsonb';
      break;
  }
  // PostGIS geometry/geography (an extension: known by name, maybe schema-qualified): takes MySQL's geometry bytes.
  if (isPostgisType(base)) out.variant = 'spatial';
  return out;
}

const fits = (c: ColumnInfo, min: bigint, max: bigint): boolean => c.min !== undefined && c.max !== undefined && BigInt(c.min) >= min && BigInt(c.max) <= max;

/** PostgreSQL type that keeps the values of a column of any kind (see Dialect.columnType). */
export function pgColumnType(src: ColumnInfo, srcUntyped: boolean): string {
  switch (src.type) {
    case 'bool':
      return 'boolean';
    case 'int':
    case 'bigint':
      if (src.variant === 'year' || fits(src, -32768n, 32767n)) return 'smallint';
      if (fits(src, -2147483648n, 2147483647n)) return 'integer';
      if (src.max !== undefined && BigInt(src.max) > 9223372036854775807n) return `numeric(${src.max.length},0)`;
      return 'bigint';
    case 'decimal':
      return src.precision !== undefined && !srcUntyped ? `numeric(${src.precision},${src.scale ?? 0})` : 'numeric';
    case 'float':
      return src.floatBits === 24 ? 'real' : 'double precision';
    case 'json':
      return src.variant === 'jsonb' ? 'jsonb' : 'json';
    case 'bytes':
      // MySQL BIT(n) keeps its width as bit(n).
      return src.variant === 'bit' ? `bit(${src.maxLength ?? 1})` : 'bytea';
    case 'date':
      return 'date';
    case 'time':
      if (src.variant === 'duration') return 'interval';
      return `time(${Math.min(src.fraction ?? 6, 6)})${src.variant === 'timetz' ? ' with time zone' : ''}`;
    case 'timestamp':
      // MySQL TIMESTAMP is an instant (kept in UTC); DATETIME and SQLite text are wall-clock values.
      return `${src.variant === 'instant' ? 'timestamptz' : 'timestamp'}(${Math.min(src.fraction ?? 6, 6)})`;
    case 'timestamptz':
      return `timestamptz(${Math.min(src.fraction ?? 6, 6)})`;
    case 'uuid':
      return 'uuid';
    case 'array':
      return src.dbType;
    default:
      if (src.variant === 'interval') return 'interval';
      if (src.variant === 'bit') return `${varyingBits(src.dbType) ? 'bit varying' : 'bit'}${src.maxLength === undefined ? '' : `(${src.maxLength})`}`;
      // CHAR(n) compares and reads as char(n) (padded): as varchar it would keep the spaces in the value.
      if (src.padded && src.maxLength !== undefined && !srcUntyped) return `character(${src.maxLength})`;
      return src.maxLength !== undefined && !srcUntyped && !src.labels ? `varchar(${src.maxLength})` : 'text';
  }
}
