import { configError } from '../../../core/errors.js';
import type { Database } from '../database.js';
import type { Dialect } from '../dialect.js';
import type { ColumnInfo } from '../types.js';

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

/** `key_range=lo..hi`: lo <= key < hi, either end open (`..100`, `100..`); integers only, so they are inlined as written. */
export interface KeyRange {
  lo: bigint | undefined;
  hi: bigint | undefined;
}

export function parseKeyRange(text: string): KeyRange {
  const m = /^(-?\d+)?\.\.(-?\d+)?$/.exec(text.trim());
  if (!m || (m[1] !== undefined && m[2] !== undefined && BigInt(m[1]) >= BigInt(m[2]))) throw configError(`key_range=${text} is not lo..hi with integers lo < hi (either may be left out: ..100, 100..)`);
  return { lo: m[1] === undefined ? undefined : BigInt(m[1]), hi: m[2] === undefined ? undefined : BigInt(m[2]) };
}

/** The rows of a key range (a single integer key column). */
export function rangePredicate(d: Dialect, key: ColumnInfo, r: KeyRange): string {
  const k = d.quote(key.name);
  return [r.lo === undefined ? '' : d.keyAtLeast(k, String(r.lo)), r.hi === undefined ? '' : `${k} < ${r.hi}`].filter(Boolean).join(' AND ') || '1 = 1';
}

/**
 * N ranges of an integer key between min and max, evenly split; the first and last are open, so a
 * row inserted below or above them while the copy runs is still read.
 */
export function splitRange(min: bigint, max: bigint, n: number): string[] {
  const span = max - min + 1n;
  const bounds = Array.from({ length: n - 1 }, (_, i) => min + (span * BigInt(i + 1)) / BigInt(n));
  return Array.from({ length: n }, (_, i) => `${i === 0 ? '' : bounds[i - 1]}..${i === n - 1 ? '' : bounds[i]}`);
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
export function partitionedDb(db: Database, table: string, predicate: string): Database {
  const d = db.dialect;
  const view = `(SELECT * FROM ${d.table(table)} WHERE ${predicate}) ${d.quote(d.baseName(table))}`;
  const dialect = Object.create(d) as Dialect;
  dialect.table = (name: string): string => (name === table ? view : d.table(name));
  return Object.create(db, { dialect: { value: dialect } }) as Database;
}
