import type { DescribedTable } from '../../core/route.js';
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
export async function describeRelation(q: Query, rel: Relation): Promise<DescribedTable> {
  const rows = await q('SELECT format_type(o, m) FROM unnest($1::oid[], $2::int[]) WITH ORDINALITY AS u(o, m, i) ORDER BY i', [rel.columns.map((c) => c.typeOid), rel.columns.map((c) => c.typmod)]);
  const columns = rel.columns.map((c, i) => postgresKind.dialect.describeType(c.name, String(rows[i]![0])));
  const primaryKey = rel.columns.filter((c) => c.key).map((c) => c.name);
  return describeCaptured(withUniques({ exists: true, columns, primaryKey, uniqueSets: primaryKey.length ? [primaryKey] : [] }));
}
