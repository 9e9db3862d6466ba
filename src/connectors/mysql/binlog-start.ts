import { configError } from '../../core/errors.js';
import type { PlanItem } from '../../core/route.js';
import { WHOLE_TRANSACTION_MAX } from '../sql/capture/change-batches.js';
import { sourceCheckpointStore } from '../sql/position/checkpoint-store.js';
import type { Database } from '../sql/database.js';
import { CaptureStateStore, formatPosition, type SnapshotProgress } from './binlog-position.js';

/** The fields that say where binlog capture keeps its state and whether it copies first. */
export interface CaptureFields {
  tables: string;
  snapshot?: string;
  slot_name?: string;
  checkpoint_store?: string;
}

/** The change-capture endpoint's fields the binlog source reads. */
export type BinlogFields = CaptureFields & { operations?: string; start_position?: string; server_id?: number; heartbeat_interval_ms?: number; source_metadata?: boolean };

/** Said once when a transaction is applied in parts. */
export const SPLIT = `a source transaction has more than ${WHOLE_TRANSACTION_MAX} changes: it is applied in parts, and until its last part lands the sink shows part of it`;

/** checkpoint_store (default: bridge_cursors_<first table> in the source database), keyed `cdc:<slot_name>`. */
export async function openCaptureStore(db: Database, firstTable: string, f: CaptureFields): Promise<CaptureStateStore> {
  const store = await sourceCheckpointStore(f.checkpoint_store, db, firstTable);
  try {
    await store.open();
  } catch (e) {
    throw configError(`binlog change capture keeps its position in ${store.description}, which could not be opened (${(e as Error).message}): set checkpoint_store (e.g. file:///var/lib/bridge)`);
  }
  return new CaptureStateStore(store, `cdc:${f.slot_name ?? 'bridge_slot'}`);
}

/** The dry run's lines for binlog change capture. */
export function capturePlan(kind: string, tables: string[], f: CaptureFields): PlanItem[] {
  const snap = f.snapshot ?? 'initial';
  const slot = f.slot_name ?? 'bridge_slot';
  return [
    { label: 'source', value: `${kind} tables ${tables.join(', ')} (binlog)` },
    {
      label: 'mode',
      value: snap === 'only' ? 'snapshot=only: one consistent copy of the tables as insert messages, then stop' : `change capture from the row-based binlog, one message per row change, released at commit; position kept as cdc:${slot}`,
    },
    { label: 'initial copy', value: snap === 'never' ? 'none (snapshot=never)' : "the tables' rows first, read in a consistent snapshot paired with its binlog position, unless a position is kept" },
  ];
}

/** Said when a run resumes a snapshot a stop interrupted: what it reads now, and what the stream applies again. */
export function resumeWarning(p: SnapshotProgress): string {
  const at = p.table ? ` at ${p.table} after key ${JSON.stringify(p.after)}` : '';
  return `resuming the initial snapshot${at} (a stop interrupted it): the rest is read as it is now, and the changes since ${formatPosition(p.join)} are applied after it (a keyed mirror ends equal to the source; an append-only sink may get some rows twice)`;
}
