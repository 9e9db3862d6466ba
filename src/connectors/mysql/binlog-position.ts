import type { CheckpointStore } from '../../checkpoint/envelope.js';
import { configError } from '../../core/errors.js';

/**
 * A place in the binlog: after the transaction that ends at `file:pos`, and (MariaDB) the GTID
 * position there — one `domain-server-seq` per replication domain, the form @@gtid_binlog_pos
 * has. The GTID is preferred to resume: it survives a binlog file being rotated or a failover.
 */
export interface BinlogPosition {
  file?: string;
  pos?: number;
  gtid?: string;
}

const GTID_LIST = /^\d+-\d+-\d+(,\d+-\d+-\d+)*$/;

/** start_position: a MariaDB GTID position (`0-1-42`) or `file:pos`; anything else is a config error naming both. */
export function parseStartPosition(text: string): BinlogPosition {
  const t = text.trim();
  if (GTID_LIST.test(t)) return { gtid: t };
  const m = /^(.+):(\d+)$/.exec(t);
  if (m) return { file: m[1]!, pos: Number(m[2]) };
  throw configError(`start_position "${text}" is neither a MariaDB GTID (e.g. 0-1-42) nor a binlog file:position (e.g. mariadb-bin.000003:1234)`);
}

/** `gtid 0-1-42 (mariadb-bin.000003:1234)` for progress lines. */
export function formatPosition(p: BinlogPosition): string {
  const fp = p.file !== undefined ? `${p.file}:${p.pos}` : '';
  if (p.gtid !== undefined) return fp ? `gtid ${p.gtid} (${fp})` : `gtid ${p.gtid}`;
  return fp || 'the binlog start';
}

/** The GTID position after `gtid` (`d-s-n`) committed: that domain's entry replaced, the others kept. */
export function advanceGtid(position: string | undefined, gtid: string): string {
  const domain = gtid.split('-')[0]!;
  const entries = (position ? position.split(',') : []).filter((e) => e && e.split('-')[0] !== domain);
  return [...entries, gtid].sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0])).join(',');
}

/** Orders two file:pos positions (binlog files are numbered `name.000123`); undefined parts sort first. */
export function compareFilePos(a: BinlogPosition, b: BinlogPosition): number {
  const num = (f: string | undefined): number => Number(/\.(\d+)$/.exec(f ?? '')?.[1] ?? -1);
  return num(a.file) - num(b.file) || (a.pos ?? 0) - (b.pos ?? 0);
}

/** The stream has read up to `target` (the binlog's end when the run began): same GTID position, or at or past its file:pos. */
export function reached(received: BinlogPosition, target: BinlogPosition): boolean {
  if (target.gtid !== undefined && received.gtid === target.gtid) return true;
  return received.file !== undefined && compareFilePos(received, target) >= 0;
}

/** Where the initial snapshot stands: the position it joins, the tables done, and the last key confirmed in the current one. */
export interface SnapshotProgress {
  join: BinlogPosition;
  done: string[];
  table?: string;
  after?: unknown[];
}

/** What is kept under `cdc:<slot_name>`: the stream's position, or the snapshot's progress while it runs. */
export interface CaptureState {
  bridge_binlog: 1;
  position?: BinlogPosition;
  snapshot?: SnapshotProgress;
}

/**
 * The capture's state in checkpoint_store (by default bridge's checkpoint table in the source
 * database), under `cdc:<slot_name>`. Saved only from acks: it never claims a change the sink has
 * not confirmed.
 */
export class CaptureStateStore {
  constructor(
    private readonly store: CheckpointStore,
    private readonly key: string,
  ) {}

  get description(): string {
    return `${this.key} in ${this.store.description}`;
  }

  async load(): Promise<CaptureState | undefined> {
    const text = await this.store.load(this.key);
    if (text === undefined) return undefined;
    const state = JSON.parse(text) as CaptureState;
    if (state.bridge_binlog !== 1) throw configError(`${this.description} is not bridge's binlog position: delete it, or use another slot_name`);
    return state;
  }

  async save(state: Omit<CaptureState, 'bridge_binlog'>): Promise<void> {
    await this.store.put(this.key, JSON.stringify({ bridge_binlog: 1, ...state }));
  }

  private lastPosition: string | undefined;
  /** When the stream's position was last written (ms since the epoch). */
  positionSavedAt = 0;

  /** Keeps the stream's position; `force` false skips a write of the text already kept. */
  async savePosition(pos: BinlogPosition, force: boolean): Promise<void> {
    const text = JSON.stringify(pos);
    if (!force && text === this.lastPosition) return;
    this.lastPosition = text;
    this.positionSavedAt = Date.now();
    await this.save({ position: pos });
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

/** A change's transaction and place, from its id seed `mysql:<table>:<gtid or file:pos>:<n>` (a schema message's names none). */
export const BINLOG_NAMING = {
  place(seed: string): { tx: string; n: number } | undefined {
    const m = /^mysql:[^:]+:(.+):(\d+)$/.exec(seed);
    return m && !m[1]!.endsWith(':schema') ? { tx: m[1]!, n: Number(m[2]) } : undefined;
  },
};

/** A change a sink holds already (resuming inside a transaction): its place, read from its id, is among the first `count` of transaction `tx`. */
export function heldAlready(m: { seedText: string | undefined }, resume: { tx: string; count: number } | undefined): boolean {
  const place = resume && BINLOG_NAMING.place(m.seedText ?? '');
  return place !== undefined && place.tx === resume!.tx && place.n < resume!.count;
}
