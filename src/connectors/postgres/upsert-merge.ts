import { createHash } from 'node:crypto';
import type { Dialect } from '../sql/dialect.js';
import type { ColumnInfo } from '../sql/types.js';

/** The temporary table's column marking a row as a key to delete (flaggedRows); a target with a column of that name has its deletes applied by statement. */
export const DELETE_FLAG = 'bridge_delete';

/**
 * A keyed group of rows merged as one simple query: `CREATE TEMP TABLE IF NOT EXISTS …; COPY …
 * FROM STDIN; INSERT … SELECT … ORDER BY <key> ON CONFLICT …`, and `TRUNCATE` of the temporary
 * table when asked (`empty`: a transaction that may merge into it again, or one held across
 * batches; ON COMMIT empties it otherwise). The temporary table is the session's, one per target and column
 * list. Rows merge in key order: the target's index and heap pages are visited in order.
 *
 * `deletes`: the COPY also carries the keys to delete, flagged (DELETE_FLAG); they are deleted
 * before the merge. Within a batch a key's last change wins (segments), so the keys deleted and
 * the rows upserted are different keys and the order between them does not matter.
 */
export function upsertSql(d: Dialect, table: string, cols: ColumnInfo[], keyNames: string[], empty: boolean, deletes = false): string {
  const target = d.table(table);
  const list = cols.map((x) => d.quote(x.name)).join(', ');
  // Named by the column types too: after ALTER COLUMN … TYPE a session's table of the old types would refuse or round values.
  const tmp = d.quote(`bridge_upsert_${createHash('sha256').update(`${table}\0${list}\0${cols.map((x) => x.dbType).join(',')}${deletes ? '\0delete' : ''}`).digest('hex').slice(0, 16)}`);
  const update = cols.map((x) => x.name).filter((n) => !keyNames.includes(n));
  const fixed = cols.filter((x) => x.fixedIdentity && !keyNames.includes(x.name)).map((x) => x.name);
  const looseKeys = cols.filter((x) => x.looseEquality && keyNames.includes(x.name)).map((x) => x.name);
  // Rows without the key (it takes its default) are not sorted: the temporary table has no such column.
  const order = keyNames.every((k) => cols.some((c) => c.name === k)) ? ` ORDER BY ${keyNames.map((k) => d.quote(k)).join(', ')}` : '';
  const flag = d.quote(DELETE_FLAG);
  const keys = keyNames.map((k) => d.quote(k)).join(', ');
  return [
    `CREATE TEMP TABLE IF NOT EXISTS ${tmp} ON COMMIT DELETE ROWS AS SELECT ${list}${deletes ? `, NULL::boolean AS ${flag}` : ''} FROM ${target} WITH NO DATA`,
    `COPY ${tmp} (${list}${deletes ? `, ${flag}` : ''}) FROM STDIN`,
    // One key: `= ANY (ARRAY(…))` is planned as an index scan whatever the planner guesses of the unanalysed temporary table.
    ...(deletes ? [`DELETE FROM ${target} WHERE ${keyNames.length === 1 ? `${keys} = ANY (ARRAY(SELECT ${keys} FROM ${tmp} WHERE ${flag}))` : `(${keys}) IN (SELECT ${keys} FROM ${tmp} WHERE ${flag})`}`] : []),
    `INSERT INTO ${target} (${list}) ${d.insertOverriding}SELECT ${list} FROM ${tmp}${deletes ? ` WHERE NOT ${flag}` : ''}${order}${d.upsertClause(keyNames, update, { fixed, target, looseKeys })}`,
    ...(empty ? [`TRUNCATE ${tmp}`] : []),
  ].join('; ');
}
