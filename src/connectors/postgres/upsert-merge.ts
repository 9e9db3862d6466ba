import { createHash } from 'node:crypto';
import type { Dialect } from '../sql/dialect.js';
import type { ColumnInfo } from '../sql/types.js';

/**
 * A keyed group of rows merged as one simple query: `CREATE TEMP TABLE IF NOT EXISTS …; COPY …
 * FROM STDIN; INSERT … SELECT … ORDER BY <key> ON CONFLICT …`, and `TRUNCATE` of the temporary
 * table when asked (`empty`: a transaction that may merge into it again, or one held across
 * batches; ON COMMIT empties it otherwise). The temporary table is the session's, one per target and column
 * list. Rows merge in key order: the target's index and heap pages are visited in order.
 */
export function upsertSql(d: Dialect, table: string, cols: ColumnInfo[], keyNames: string[], empty: boolean): string {
  const target = d.table(table);
  const list = cols.map((x) => d.quote(x.name)).join(', ');
  // Named by the column types too: after ALTER COLUMN … TYPE a session's table of the old types would refuse or round values.
  const tmp = d.quote(`bridge_upsert_${createHash('sha256').update(`${table}\0${list}\0${cols.map((x) => x.dbType).join(',')}`).digest('hex').slice(0, 16)}`);
  const update = cols.map((x) => x.name).filter((n) => !keyNames.includes(n));
  // Rows without the key (it takes its default) are not sorted: the temporary table has no such column.
  const order = keyNames.every((k) => cols.some((c) => c.name === k)) ? ` ORDER BY ${keyNames.map((k) => d.quote(k)).join(', ')}` : '';
  return [
    `CREATE TEMP TABLE IF NOT EXISTS ${tmp} ON COMMIT DELETE ROWS AS SELECT ${list} FROM ${target} WITH NO DATA`,
    `COPY ${tmp} (${list}) FROM STDIN`,
    `INSERT INTO ${target} (${list}) SELECT ${list} FROM ${tmp}${order}${d.upsertClause(keyNames, update)}`,
    ...(empty ? [`TRUNCATE ${tmp}`] : []),
  ].join('; ');
}
