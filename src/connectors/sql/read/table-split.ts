import type { Endpoint } from '../../../config/endpoint.js';
import { configError } from '../../../core/errors.js';
import { openDatabase } from '../open-database.js';
import { loadKind } from '../kind.js';
import { splitRange } from './partition.js';
import { INTEGER_TYPES } from '../types.js';

/**
 * `--parallel N` on one table: the source field each of N routes reads its part with. A primary
 * key of one integer column is split into N ranges between its MIN and MAX (each range a key range
 * scan); any other key into N hash parts (`partition=k/N`), each scanning the key index.
 */
export async function splitTable(ep: Endpoint, n: number, warn: (s: string) => void): Promise<[string, string][]> {
  const driver = await loadKind(ep.kind);
  const d = driver.dialect;
  const table = ep.fields.table as string;
  const { db, release } = await openDatabase(ep, driver, warn);
  try {
    // A Database answers query() as a connection does: the dialect needs nothing else.
    const info = await d.introspect(db, table);
    if (!info.exists) throw configError(`table ${table} does not exist in the ${ep.kind} source`);
    if (info.primaryKey.length === 0) throw configError(`--parallel splits ${table} by its primary key, and it has none: copy it with one connection`);
    const key = info.columns.find((c) => c.name === info.primaryKey[0])!;
    if (info.primaryKey.length > 1 || !INTEGER_TYPES.has(key.type)) return Array.from({ length: n }, (_, k) => ['partition', `${k}/${n}`]);
    const r = await db.query(`SELECT MIN(${d.quote(key.name)}), MAX(${d.quote(key.name)}) FROM ${d.table(table)}`);
    const [min, max] = r.rows[0] ?? [];
    if (min === null || min === undefined) return [['key_range', '..']];
    return splitRange(BigInt(String(min)), BigInt(String(max)), n).map((range) => ['key_range', range]);
  } finally {
    await release();
  }
}
