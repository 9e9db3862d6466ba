import { createHash } from 'node:crypto';
import type { Dialect } from '../sql/dialect.js';
import type { ColumnInfo } from '../sql/types.js';

/** The statements that merge a keyed batch: COPY into a temporary table, then one INSERT … SELECT … ON CONFLICT. */
export interface UpsertMerge {
  /** The session's temporary table for this target and column list, emptied at each commit. */
  create: string;
  copy: string;
  merge: string;
  /** Empties it inside a transaction held across batches, where ON COMMIT has not come. */
  empty: string;
}

export function upsertMerge(d: Dialect, table: string, cols: ColumnInfo[], keyNames: string[]): UpsertMerge {
  const target = d.table(table);
  const list = cols.map((x) => d.quote(x.name)).join(', ');
  const tmp = d.quote(`bridge_upsert_${createHash('sha256').update(`${table}\0${list}`).digest('hex').slice(0, 16)}`);
  const update = cols.map((x) => x.name).filter((n) => !keyNames.includes(n));
  // Rows merged in key order: the index and heap pages of the target are visited in order (a few % on random keys).
  const order = keyNames.map((k) => d.quote(k)).join(', ');
  return {
    create: `CREATE TEMP TABLE IF NOT EXISTS ${tmp} ON COMMIT DELETE ROWS AS SELECT ${list} FROM ${target} WITH NO DATA`,
    copy: `COPY ${tmp} (${list}) FROM STDIN`,
    merge: `INSERT INTO ${target} (${list}) SELECT ${list} FROM ${tmp} ORDER BY ${order}${d.upsertClause(keyNames, update)}`,
    empty: `TRUNCATE ${tmp}`,
  };
}
