import type { DescribedTable } from '../../core/route.js';
import type { StreamColumn } from '../../core/schema-change.js';
import { withUniques } from '../sql/types.js';
import { describeCaptured } from './cdc-setup.js';
import { postgresKind } from './index.js';
import type { Relation } from './pgoutput.js';

type Query = (sql: string, params?: unknown[]) => Promise<unknown[][]>;

/**
 * A captured table as a relation message of the stream shows it — its columns at that point of the
 * WAL, not as the catalog has them now (a later ALTER may have changed them again): each type from
 * its oid and modifier (`character varying(50)`), the key from the replica identity flags.
 */
export async function describeRelation(q: Query, rel: Relation): Promise<{ table: DescribedTable; attnums: number[] }> {
  // Each column's number in the table (attnum) as the catalog has it now: a rename keeps it, an added column gets a new one.
  const rows = await q(
    `SELECT format_type(u.o, u.m), COALESCE(a.attnum, -1) FROM unnest($1::oid[], $2::int[], $3::text[]) WITH ORDINALITY AS u(o, m, n, i)
       LEFT JOIN pg_attribute a ON a.attrelid = $4::oid AND a.attname = u.n AND NOT a.attisdropped ORDER BY u.i`,
    [rel.columns.map((c) => c.typeOid), rel.columns.map((c) => c.typmod), rel.columns.map((c) => c.name), rel.id],
  );
  const columns = rel.columns.map((c, i) => postgresKind.dialect.describeType(c.name, String(rows[i]![0])));
  const primaryKey = rel.columns.filter((c) => c.key).map((c) => c.name);
  const table = describeCaptured(withUniques({ exists: true, columns, primaryKey, uniqueSets: primaryKey.length ? [primaryKey] : [] }));
  return { table, attnums: rows.map((r) => Number(r[1])) };
}

/**
 * The captured tables' columns as the stream will show them at the slot's start, with their
 * numbers (attnum): known to be the stream's own when this run made the slot, so the first column
 * change it streams can tell a rename from a drop and an add. pgoutput leaves generated columns out.
 */
export async function seedShapes(q: Query, tables: readonly string[], seed: (table: string, cols: StreamColumn[]) => void): Promise<void> {
  for (const t of tables) {
    const rows = await q(
      `SELECT attname, atttypid, atttypmod, attnum FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
      [postgresKind.dialect.table(t)],
    );
    seed(t, rows.map(([name, oid, mod, num]) => ({ name: String(name), type: `${String(oid)}:${String(mod)}`, attnum: Number(num) })));
  }
}
