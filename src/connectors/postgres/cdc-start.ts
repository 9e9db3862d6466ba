import type { CheckpointStore } from '../../checkpoint/envelope.js';
import { configError } from '../../core/errors.js';
import type { PlanItem } from '../../core/route.js';
import type { Database } from '../sql/database.js';
import { sourceCheckpointStore } from '../sql/position/checkpoint-store.js';
import { fitName } from '../sql/identifiers.js';
import { prepareCapture, slotExists, type SlotMaker } from './cdc-setup.js';
import type { CaptureConfig } from './cdc-config.js';
import { checkStartPosition } from './cdc-stop.js';
import type { CopyAt } from './cdc-initial-copy.js';
import type { ReplicationStream } from './replication-stream.js';

type Query = (sql: string, params?: unknown[]) => Promise<unknown[][]>;

/** How a change-capture run begins: with an initial copy (in the slot's exported snapshot, or resumed after a key), or streaming at once. */
export interface CaptureStart {
  copy?: { snapshot?: string; at?: CopyAt };
  /** Where the progress of an unfinished initial copy is kept, under `key`. */
  progress?: CopyProgress;
  stopped?: boolean;
}

/**
 * The progress of the initial copy of a permanent slot, kept until the copy is over: present, the
 * slot was made for a copy that has not ended (resumed after its last key); absent, the slot's
 * stream is all there is to read. Kept in checkpoint_store, by default bridge's checkpoint table
 * in the source database, under `cdc:<slot>`.
 */
export class CopyProgress {
  private last: string | undefined;
  constructor(
    private readonly store: CheckpointStore,
    private readonly key: string,
    private readonly table: string,
  ) {}

  /** undefined: no copy to resume; null: one that confirmed nothing yet; else where it stands. */
  async load(): Promise<CopyAt | null | undefined> {
    const text = await this.store.load(this.key);
    if (text === undefined) return undefined;
    this.last = text;
    const saved = JSON.parse(text) as { bridge_initial_copy?: number; table?: string; after?: string[] | null };
    if (saved.bridge_initial_copy !== 1) throw configError(`${this.key} in ${this.store.description} is not bridge's initial-copy progress: delete it, or use another slot_name`);
    return saved.after || saved.table !== this.table ? { table: saved.table ?? this.table, after: saved.after ?? undefined } : null;
  }

  async save(at: CopyAt | null): Promise<void> {
    const text = JSON.stringify({ bridge_initial_copy: 1, table: at?.table ?? this.table, after: at?.after ?? null });
    await this.store.put(this.key, text);
    this.last = text;
  }

  /** The copy is over: from now on the slot alone is the position. */
  async finish(): Promise<void> {
    if (this.last !== undefined) await this.store.swap(this.key, this.last, undefined);
    this.last = undefined;
    await this.store.close();
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

async function openProgress(db: Database, table: string, slot: string, checkpointStore: string | undefined, create: boolean): Promise<CopyProgress | undefined> {
  // A slot made before initial copies existed (or with snapshot=never) has no progress: no table is created to find that out.
  if (!create && checkpointStore === undefined) {
    const name = fitName(`bridge_cursors_${db.dialect.baseName(table)}`, db.dialect.maxIdentLength);
    const schema = db.dialect.schemaOf(table);
    // Quoted: to_regclass folds a bare name to lower case, and "Orders"' progress would not be found.
    const r = await db.query('SELECT to_regclass($1) IS NOT NULL', [db.dialect.table(schema ? `${schema}.${name}` : name)]);
    const found = r.rows[0]?.[0];
    if (found !== true && found !== 't') return undefined;
  }
  const store = await sourceCheckpointStore(checkpointStore, db, table);
  try {
    await store.open();
  } catch (e) {
    throw configError(`the initial copy keeps its progress in ${store.description}, which could not be opened (${(e as Error).message}): set checkpoint_store (e.g. file:///var/lib/bridge), or snapshot=never to stream changes only`);
  }
  return new CopyProgress(store, `cdc:${slot}`, table);
}

/**
 * Decides how the run begins and creates the slot when it is missing. snapshot=initial: a new slot
 * is created on the replication connection with its snapshot exported, after its copy's progress
 * is noted (so a run stopped at any moment resumes the copy); an existing slot resumes a copy that
 * did not end, or streams. A stop during the creation cancels it and leaves no slot.
 */
export async function startCapture(o: {
  db: Database;
  q: Query;
  stream: ReplicationStream;
  f: { table: string; slot_name: string; temporary_slot: boolean; checkpoint_store?: string };
  maker: SlotMaker | undefined;
  failed: (e: unknown) => void;
}): Promise<CaptureStart> {
  const { f, stream } = o;
  if (f.temporary_slot) {
    await stream.connect(o.failed);
    return { copy: { snapshot: await stream.createSlot(true) } };
  }
  if (await slotExists(o.q, f.slot_name)) {
    const progress = await openProgress(o.db, f.table, f.slot_name, f.checkpoint_store, false);
    const at = await progress?.load();
    if (at === undefined) {
      await progress?.close();
      return {};
    }
    return { copy: at ? { at } : {}, progress };
  }
  // Without it no slot can be made: said first, before anything is created for the copy.
  const [role] = await o.q('SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user');
  if (role && role[0] !== true && role[0] !== 't') throw configError(`creating replication slot ${f.slot_name} needs the REPLICATION attribute: ALTER ROLE <user> WITH REPLICATION`);
  const progress = (await openProgress(o.db, f.table, f.slot_name, f.checkpoint_store, true))!;
  await progress.save(null);
  await stream.connect(o.failed);
  const stop = o.maker?.stop;
  const onStop = (): void => void o.maker?.cancel(String(stream.pid)).catch(() => {});
  stop?.addEventListener('abort', onStop, { once: true });
  let snapshot: string | undefined;
  try {
    snapshot = await stream.createSlot(true);
  } catch (e) {
    if (!stop?.aborted) throw e;
  } finally {
    stop?.removeEventListener('abort', onStop);
  }
  if (stop?.aborted) {
    // Stopped while the slot was being made: no slot, no progress of this run is left.
    await stream.end();
    await o.q('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active', [f.slot_name]).catch(() => {});
    await progress.finish();
    return { stopped: true };
  }
  return { copy: { snapshot }, progress };
}

/**
 * A run's start: the publication checked or made, the slot found or made (with its snapshot, for
 * snapshot=initial), start_position checked against it; then where the run begins (startCapture).
 */
export async function beginCapture(o: { db: Database; q: Query; stream: ReplicationStream; f: CaptureConfig; tables: string[]; dryRun: boolean; maker: SlotMaker | undefined; failed: (e: unknown) => void }) {
  const { f } = o;
  const copyFirst = f.snapshot !== 'never';
  const ready = await prepareCapture(o.q, f, o.tables, o.dryRun, o.maker, copyFirst);
  if (!o.dryRun && !ready.stopped && f.startLsn !== undefined) await checkStartPosition(o.q, f.slot_name, f.startLsn);
  const first = { table: o.tables[0]!, slot_name: f.slot_name, temporary_slot: f.temporary_slot, checkpoint_store: f.checkpoint_store };
  const start: CaptureStart = ready.stopped || o.dryRun || !copyFirst ? { stopped: ready.stopped } : await startCapture({ ...o, f: first });
  return { ready, start };
}

/** The dry run's lines for change capture: what exists, what a start creates, and whether it copies first. */
export async function capturePlan(q: Query, f: { table: string; publication: string; slot_name: string; temporary_slot: boolean; snapshot?: string }): Promise<PlanItem[]> {
  const slot = `${f.temporary_slot ? 'temporary ' : ''}slot ${f.slot_name}`;
  const has = async (sql: string, name: string) => (await q(sql, [name]).catch(() => [])).length > 0;
  const pub = (await has('SELECT 1 FROM pg_publication WHERE pubname = $1', f.publication)) ? 'exists' : 'created at start (create_publication=true)';
  const exists = !f.temporary_slot && (await has('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', f.slot_name));
  const made = f.temporary_slot ? 'made at start, dropped when the run ends' : exists ? 'exists' : 'created at start';
  if (f.snapshot === 'only') return [{ label: 'source', value: `postgres table ${f.table}` }, { label: 'mode', value: 'snapshot=only: one consistent copy of the table as insert messages, then stop (no slot, no publication)' }];
  const copy =
    f.snapshot === 'never'
      ? 'none (snapshot=never): only changes committed after the slot'
      : exists
        ? 'none, unless a stopped one is resumed: the slot exists'
        : `the table's rows first, read in the snapshot the new slot exports, then its changes`;
  return [
    { label: 'source', value: `postgres table ${f.table}` },
    { label: 'mode', value: `change capture: publication ${f.publication}, ${slot} (pgoutput), one message per row change, released at commit` },
    { label: 'publication', value: `${f.publication}: ${pub}` },
    { label: 'slot', value: `${f.slot_name}: ${made}` },
    { label: 'initial copy', value: copy },
  ];
}
