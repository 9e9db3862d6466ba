import type { ColumnInfo, SqlKind } from './types.js';

export interface TypedColumn extends ColumnInfo {
  kind: SqlKind | string;
}

const num = (re: RegExp, s: string): number | undefined => {
  const m = re.exec(s);
  return m ? Number(m[1]) : undefined;
};

/** Fractional-second digits a timestamp column keeps. */
function fraction(c: TypedColumn): number {
  const d = c.dbType.toLowerCase();
  const n = num(/\((\d)\)/, d);
  if (n !== undefined) return n;
  if (c.kind === 'mysql' || c.kind === 'mariadb') return 0;
  return c.kind === 'sqlite' ? 9 : 6;
}

/** `decimal(p,s)` → [p, s]. */
function precision(c: TypedColumn): [number, number] | undefined {
  const m = /\((\d+)\s*,\s*(\d+)\)/.exec(c.dbType);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

const MYSQL = new Set(['mysql', 'mariadb']);

/**
 * Why writing values of `src` into `dst` (columns=auto) can lose or reject something, in the words
 * of the README's type table; undefined when the target holds every value exactly.
 */
export function lossOf(src: TypedColumn, dst: TypedColumn): string | undefined {
  const s = src.type;
  const d = dst.type;
  const dType = dst.dbType.toLowerCase();
  if (s === 'array' && d !== 'array') return d === 'json' || d === 'text' ? undefined : 'an array only fits a JSON, text or array column: rejected';
  if (s === 'decimal' && d === 'float') return 'decimal into floating point: about 15 significant digits are kept';
  if (s === 'decimal' && d === 'decimal') {
    if (dst.kind === 'sqlite') return 'SQLite keeps DECIMAL as REAL: about 15 significant digits are kept';
    const a = precision(src);
    const b = precision(dst);
    if (b && (!a || b[1] < a[1])) return `scale ${a ? a[1] : 'unbounded'} into ${b[1]}: extra digits are rounded`;
    if (a && b && b[0] - b[1] < a[0] - a[1]) return `${a[0] - a[1]} integer digits into ${b[0] - b[1]}: larger values are rejected`;
  }
  if (s === 'bigint' && d === 'int') return 'bigint into a smaller integer: values beyond its range are rejected';
  if ((s === 'decimal' || s === 'float') && (d === 'int' || d === 'bigint')) return 'fractions into an integer column: rounded or rejected';
  if ((s === 'timestamp' || s === 'timestamptz') && (d === 'timestamp' || d === 'timestamptz')) {
    const fs = fraction(src);
    const fd = fraction(dst);
    if (fd < fs) return `${fs} fractional digits into a column that keeps ${fd} (${MYSQL.has(String(dst.kind)) ? 'MariaDB truncates, MySQL rounds' : 'rounded'})`;
    if (s === 'timestamptz' && d === 'timestamp' && MYSQL.has(String(dst.kind))) return 'time zone dropped: the instant is stored in UTC';
  }
  if (s === 'float' && d === 'float' && src.kind === 'postgres' && MYSQL.has(String(dst.kind))) return 'NaN and ±Infinity do not exist in MySQL/MariaDB: such rows are rejected';
  if (d === 'text' && /char/.test(dType) && /\(\s*\d+\s*\)/.test(dType) && s !== 'bool' && s !== 'int') return `into ${dst.dbType}: longer values are rejected`;
  if (s === 'bytes' && d === 'text') return 'bytes stored as their base64 text';
  if (s === 'json' && d !== 'json' && d !== 'text') return 'JSON into a non-JSON column: only scalars fit';
  return undefined;
}
