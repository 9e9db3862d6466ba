import { configError } from '../../core/errors.js';
import type { Database } from './database.js';
import type { Dialect } from './dialect.js';
import type { ColumnInfo } from './types.js';

/** Part k of n of a table (`partition=k/n`). */
export interface Part {
  k: number;
  n: number;
}

export function parsePartition(text: string): Part {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const k = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || n < 1 || k >= n) throw configError(`partition=${text} is not k/N with 0 <= k < N (e.g. partition=0/4 … 3/4)`);
  return { k, n };
}

/** The rows of part k: their key's hash, reduced to 0…n-1 (the hash may be negative), is k. */
export function partPredicate(d: Dialect, key: ColumnInfo[], p: Part): string {
  const h = d.keyHash(key.map((c) => d.quote(c.name)));
  return `((${h} % ${p.n}) + ${p.n}) % ${p.n} = ${p.k}`;
}

/**
 * The database as the readers of one part see it: `table` reads as the subquery of that part's
 * rows, under the table's own name, so every query a reader builds (pages, late rows, counts, COPY
 * ranges) is limited to the part without knowing it. The planners flatten the subquery: a page is
 * still a key range scan, filtered.
 */
export function partitionedDb(db: Database, table: string, key: ColumnInfo[], p: Part): Database {
  const d = db.dialect;
  const view = `(SELECT * FROM ${d.table(table)} WHERE ${partPredicate(d, key, p)}) ${d.quote(d.baseName(table))}`;
  const dialect = Object.create(d) as Dialect;
  dialect.table = (name: string): string => (name === table ? view : d.table(name));
  return Object.create(db, { dialect: { value: dialect } }) as Database;
}
