import type { LogicalType } from '../sql/types.js';

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

/** Logical type (and element type) of a PostgreSQL type OID. */
export function pgType(oid: number): { type: LogicalType; elem?: LogicalType } {
  const s = SCALARS[oid];
  if (s) return { type: s };
  const e = ARRAYS[oid];
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
