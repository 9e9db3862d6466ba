import type { ColumnInfo, LogicalType } from '../sql/types.js';
import { varyingBits } from '../sql/values/bit-strings.js';

/** information_schema type → logical type. */
export function mysqlType(dataType: string, columnType: string): LogicalType {
  switch (dataType) {
    case 'tinyint':
      return /^tinyint\(1\)/.test(columnType) ? 'bool' : 'int';
    case 'bit':
      return /^bit\(1\)/.test(columnType) ? 'bool' : 'bytes';
    case 'smallint':
    case 'mediumint':
    case 'int':
    case 'integer':
    case 'year':
      return 'int';
    case 'bigint':
      return 'bigint';
    case 'decimal':
    case 'numeric':
      return 'decimal';
    case 'float':
    case 'double':
    case 'real':
      return 'float';
    case 'json':
      return 'json';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return 'bytes';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'datetime':
    case 'timestamp':
      return 'timestamp';
    case 'uuid':
      return 'uuid';
    default:
      return SPATIAL.has(dataType) ? 'bytes' : 'text';
  }
}

/**
 * Spatial types (MySQL 8 names GEOMETRYCOLLECTION `geomcollection`). Their values travel as MySQL's
 * own bytes (a 4-byte little-endian SRID, then WKB): exact, and accepted back by any spatial column.
 */
export const SPATIAL = new Set(['geometry', 'point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection', 'geomcollection']);

const INT_BITS: Record<string, number> = { tinyint: 8, smallint: 16, mediumint: 24, int: 32, integer: 32, bigint: 64 };
const TEXT_BYTES: Record<string, number> = { tinytext: 255, text: 65535, mediumtext: 16777215, longtext: 4294967295, tinyblob: 255, blob: 65535, mediumblob: 16777215, longblob: 4294967295 };

/** Ranges, digits and lengths a column keeps, from information_schema (`bigint(20) unsigned`, `decimal(65,30)`, `enum('a','b')`). */
export function mysqlAttributes(dataType: string, columnType: string, charLength: unknown, precision: unknown, scale: unknown, fraction: unknown): Partial<ColumnInfo> {
  const out: Partial<ColumnInfo> = {};
  const bits = INT_BITS[dataType];
  if (bits) {
    const unsigned = /unsigned/.test(columnType);
    const span = 2n ** BigInt(bits);
    out.min = unsigned ? '0' : String(-(span / 2n));
    out.max = String(unsigned ? span - 1n : span / 2n - 1n);
    if (dataType === 'tinyint' && /^tinyint\(1\)/.test(columnType)) out.variant = 'tinybool';
  }
  switch (dataType) {
    case 'decimal':
    case 'numeric':
      out.precision = Number(precision);
      out.scale = Number(scale ?? 0);
      break;
    case 'float':
      out.floatBits = 24;
      break;
    case 'double':
    case 'real':
      out.floatBits = 53;
      break;
    case 'varchar':
    case 'char':
    case 'varbinary':
    case 'binary':
      if (charLength !== null && charLength !== undefined) out.maxLength = Number(charLength);
      if (dataType === 'char') out.padded = 'trimmed';
      break;
    case 'year':
      Object.assign(out, { variant: 'year', min: '0', max: '2155' });
      break;
    case 'bit': {
      const n = Number(/\((\d+)\)/.exec(columnType)?.[1] ?? 1);
      out.maxLength = n;
      if (n > 1) out.variant = 'bit';
      break;
    }
    case 'inet4':
    case 'inet6':
      // Addresses: never a NUL, at most 15 / 39 characters.
      out.variant = 'inet';
      out.maxLength = dataType === 'inet4' ? 15 : 39;
      break;
    case 'geometry':
    case 'point':
    case 'linestring':
    case 'polygon':
    case 'multipoint':
    case 'multilinestring':
    case 'multipolygon':
    case 'geometrycollection':
    case 'geomcollection':
      out.variant = 'spatial';
      break;
    case 'enum':
    case 'set':
      out.variant = dataType;
      out.labels = [...columnType.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'").replace(/\\\\/g, '\\'));
      break;
    case 'time':
      out.variant = 'duration';
      out.fraction = Number(fraction ?? 0);
      break;
    case 'datetime':
    case 'timestamp':
      out.fraction = Number(fraction ?? 0);
      if (dataType === 'timestamp') out.variant = 'instant';
      break;
    default:
      // LONGTEXT/LONGBLOB (4 GiB) are limited by max_allowed_packet long before: no limit worth checking.
      if (TEXT_BYTES[dataType] !== undefined && TEXT_BYTES[dataType]! < 2 ** 32 - 1) out.maxBytes = TEXT_BYTES[dataType];
  }
  return out;
}

const INT_TYPES: [string, bigint, bigint][] = [
  ['TINYINT', -128n, 127n],
  ['SMALLINT', -32768n, 32767n],
  ['MEDIUMINT', -8388608n, 8388607n],
  ['INT', -2147483648n, 2147483647n],
  ['BIGINT', -(2n ** 63n), 2n ** 63n - 1n],
];

/** The smallest MySQL integer type holding [min, max] (UNSIGNED when that is what fits). */
function integerType(min: bigint, max: bigint): string {
  for (const [name, lo, hi] of INT_TYPES) {
    if (min >= lo && max <= hi) return name;
    if (min >= 0n && max <= hi * 2n + 1n) return `${name} UNSIGNED`;
  }
  return `DECIMAL(${String(max).length},0)`;
}

/** A string literal in the session's sql_mode (backslashes escape). */
export const mysqlText = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

const enumList = (labels: string[]): string => labels.map(mysqlText).join(',');

/** MySQL/MariaDB type that keeps the values of a column of any kind (see Dialect.columnType). */
export function mysqlColumnType(src: ColumnInfo, srcUntyped: boolean): string {
  const frac = Math.min(src.fraction ?? 6, 6);
  switch (src.type) {
    case 'bool':
      return 'TINYINT(1)';
    case 'int':
    case 'bigint':
      if (src.variant === 'year') return 'YEAR';
      return src.min !== undefined && src.max !== undefined ? integerType(BigInt(src.min), BigInt(src.max)) : 'BIGINT';
    case 'decimal':
      return src.precision !== undefined && !srcUntyped && src.precision <= 65 && (src.scale ?? 0) <= 30 ? `DECIMAL(${src.precision},${src.scale ?? 0})` : 'DECIMAL(65,30)';
    case 'float':
      // A DOUBLE holds every FLOAT exactly, and MySQL prints a FLOAT with 6 significant digits only.
      return src.floatBits === 24 && srcUntyped === false && src.dbType.toLowerCase() === 'float' ? 'FLOAT' : 'DOUBLE';
    case 'json':
    case 'array':
      return 'JSON';
    case 'bytes':
      if (src.variant === 'bit') return `BIT(${src.maxLength ?? 1})`;
      if (src.variant === 'spatial') return /^[a-z]+$/i.test(src.dbType) ? src.dbType.toUpperCase() : 'GEOMETRY';
      return src.maxLength !== undefined && src.maxLength <= 65000 && !srcUntyped ? `VARBINARY(${src.maxLength})` : 'LONGBLOB';
    case 'date':
      return 'DATE';
    case 'time':
      return `TIME(${frac})`;
    case 'timestamp':
    case 'timestamptz':
      return `DATETIME(${frac})`;
    case 'uuid':
      return 'CHAR(36)';
    default:
      if (src.labels && (src.variant === 'enum' || src.variant === 'set')) return `${src.variant.toUpperCase()}(${enumList(src.labels)})`;
      // PostgreSQL bit(n) up to 64 bits is BIT(n); varbit keeps its length only as text of 0s and 1s.
      if (src.variant === 'bit' && !varyingBits(src.dbType) && (src.maxLength ?? 1) <= 64) return `BIT(${src.maxLength ?? 1})`;
      // CHAR holds 255 characters at most; a longer char(n) is a VARCHAR (the dry run flags its padding).
      if (src.padded && src.maxLength !== undefined && src.maxLength <= 255 && !srcUntyped) return `CHAR(${src.maxLength})`;
      return src.maxLength !== undefined && src.maxLength <= 16000 && !srcUntyped ? `VARCHAR(${src.maxLength})` : 'LONGTEXT';
  }
}
