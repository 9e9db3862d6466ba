import type { Endpoint } from '../../config/endpoint.js';
import { configError } from '../../core/errors.js';
import type { Database } from '../sql/database.js';
import { expandTables } from '../sql/read/table-list.js';
import { parseLsn } from './pgoutput.js';

/**
 * What a change-capture run does, from either way of asking for it: `publication=` on one table's
 * URL, or the change-capture endpoint (`postgres+cdc://…?tables=…`, fields.dedicated).
 */
export interface CaptureConfig {
  /** The tables as listed (`orders`, `public.*`), expanded by `listCaptured`. */
  listed: string;
  publication: string;
  slot_name: string;
  create_publication: boolean;
  temporary_slot: boolean;
  /** Drop the slot (and a publication this run created) on a clean stop. */
  drop_slot: boolean;
  snapshot: 'initial' | 'never' | 'only';
  operations: ReadonlySet<string>;
  heartbeatMs: number;
  /** start_position: transactions committed before it are skipped. */
  startLsn: bigint | undefined;
  source_metadata: boolean;
  checkpoint_store: string | undefined;
  dedicated: boolean;
}

export function captureConfig(ep: Endpoint): CaptureConfig {
  const f = ep.fields;
  const dedicated = f.dedicated === true;
  const ops = dedicated ? String(f.operations).split(',').map((s) => s.trim().toLowerCase()) : ['insert', 'update', 'delete', 'truncate'];
  let startLsn: bigint | undefined;
  if (f.start_position !== undefined) {
    if (!/^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/.test(String(f.start_position))) throw configError(`start_position "${String(f.start_position)}" is not a PostgreSQL LSN: write it as pg_current_wal_lsn() prints it, e.g. 0/16B3748`);
    startLsn = parseLsn(String(f.start_position));
  }
  return {
    listed: String(dedicated ? f.tables : f.table),
    publication: String(f.publication ?? f.slot_name),
    slot_name: String(f.slot_name),
    create_publication: f.create_publication === true,
    temporary_slot: f.temporary_slot === true,
    drop_slot: f.drop_slot === true,
    snapshot: (f.snapshot as CaptureConfig['snapshot'] | undefined) ?? 'initial',
    operations: new Set(ops),
    heartbeatMs: typeof f.heartbeat_interval_ms === 'number' ? f.heartbeat_interval_ms : 10_000,
    startLsn,
    source_metadata: f.source_metadata === true,
    checkpoint_store: f.checkpoint_store as string | undefined,
    dedicated,
  };
}

/**
 * The tables captured: the one table of `publication=`, or the endpoint's list expanded (`*`,
 * `schema.*`, patterns). A pattern leaves out tables whose updates and deletes could not be
 * published (no primary key, no replica identity), with a warning; a table named outright is
 * checked when its publication is made.
 */
export async function listCaptured(ep: Endpoint, cfg: CaptureConfig, db: Database, warn: (s: string) => void): Promise<string[]> {
  if (!cfg.dedicated) return [cfg.listed];
  const all = await expandTables(ep, [], warn);
  if (!cfg.listed.includes('*')) return all;
  const keyed: string[] = [];
  const skipped: string[] = [];
  for (const t of all) {
    const r = await db.query(
      `SELECT c.relreplident <> 'n' AND (c.relreplident <> 'd' OR EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND (i.indisprimary OR i.indisreplident))) FROM pg_class c WHERE c.oid = to_regclass($1)`,
      [db.dialect.table(t)],
    );
    const ok = r.rows[0]?.[0];
    (ok === true || ok === 't' ? keyed : skipped).push(t);
  }
  if (skipped.length) warn(`not captured (no primary key or replica identity, so their updates and deletes cannot be published): ${skipped.join(', ')}; name one in tables= to be told how to fix it`);
  if (keyed.length === 0) throw configError(`tables=${cfg.listed} names no table with a primary key or replica identity`);
  return keyed;
}
