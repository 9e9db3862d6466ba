import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, configError, transientError } from '../../core/errors.js';
import type { DescribedTable, PlanItem, PoolStats, Source, SourceBatch, SourceContext } from '../../core/route.js';
import { Wakeup } from '../../core/wakeup.js';
import { ReleasedChanges } from '../sql/capture/change-batches.js';
import type { Database } from '../sql/database.js';
import { openDatabase } from '../sql/open-database.js';
import { BinlogAssembler } from './binlog-changes.js';
import { ChangeSinkPosition, HandedChanges } from '../sql/capture/change-position.js';
import { nextChanges, type ChangeLoop } from '../sql/capture/change-loop.js';
import { checkBinlogServer } from './binlog-checks.js';
import { CapturedTables } from './binlog-tables.js';
import { BINLOG_NAMING, formatPosition, reached, parseStartPosition, type BinlogPosition, type CaptureStateStore, type SnapshotProgress } from './binlog-position.js';
import { EventFeed } from './binlog-feed.js';
import { BinlogReader, defaultServerId } from './binlog-reader.js';
import { capturePlan, openCaptureStore, resumeWarning, SPLIT, type BinlogFields as Fields } from './binlog-start.js';
import { binlogEnd, ConsistentRead, SnapshotPhase } from './binlog-snapshot.js';
import type { MysqlDialect } from './dialect.js';
import { mysqlConfig } from './driver.js';
import { mysqlKind } from './index.js';

/**
 * MariaDB/MySQL change capture from the row-based binlog: the captured tables' rows first (a
 * consistent snapshot paired with its binlog position, snapshot=initial), then one message per
 * row change, released at its transaction's commit, in batches of whole transactions. The kept
 * position (GTID, else file:pos) moves only past transactions whose every message the sink
 * confirmed; it lives in checkpoint_store under `cdc:<slot_name>`.
 */
export class BinlogSource implements Source {
  readonly durablePosition = true;
  readonly streamsChanges = true;
  private db!: Database;
  private releaseDb: (() => Promise<void>) | undefined;
  private ctx!: SourceContext;
  private dialect!: MysqlDialect;
  private tables!: CapturedTables;
  private store: CaptureStateStore | undefined;
  private reader: BinlogReader | undefined;
  private assembler: BinlogAssembler | undefined;
  private released!: ReleasedChanges;
  private snapshot: SnapshotPhase | undefined;
  /** After the last transaction the sink confirmed (what is kept). */
  private confirmed: BinlogPosition | undefined;
  private received: BinlogPosition = {};
  private drainTarget: BinlogPosition = {};
  private failure: BridgeError | undefined;
  private over = false;
  private readonly wakeup = new Wakeup();
  private splitSaid = false;
  private readonly warnSplit = (): void => void (this.splitSaid || this.ctx.warn(SPLIT), (this.splitSaid = true));
  private timer: NodeJS.Timeout | undefined;
  /** Where the batches handed out end, and the sink's position (exactly once) when it keeps one. */
  private readonly handed = new HandedChanges({ show: (seq) => JSON.stringify(this.assembler?.commits.get(seq) ?? {}), place: BINLOG_NAMING.place });
  /** The part of a long transaction the sink holds, or this run handed out before its stream restarted. */
  private resume: { tx: string; count: number } | undefined;

  constructor(private readonly ep: Endpoint) {}

  private get f(): Fields {
    return this.ep.fields as unknown as Fields;
  }

  private readonly q = async (sql: string, params?: unknown[]) => (await this.db.query(sql, params)).rows;

  /** The captured tables, as `bridge.table` names them (tables=*: with those created since the run started). */
  capturedTables = (): string[] => [...(this.tables?.keys() ?? [])];

  async open(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    const show = (seq: bigint): string | undefined => ((at) => at && formatPosition(at))(this.assembler?.commits.get(seq));
    this.released = new ReleasedChanges(Math.max(10_000, ctx.batchSize * 8), { pause: () => this.reader?.pause(), resume: () => this.reader?.resume() }, show);
    const kind = mysqlKind(this.ep.kind as 'mysql' | 'mariadb');
    this.dialect = kind.dialect as MysqlDialect;
    if (!this.ep.url?.path) throw configError(`the ${this.ep.kind} change-capture URL needs the database as its path: ${this.ep.kind}+cdc://host/<database>?tables=…`);
    const opened = await openDatabase(this.ep, kind, ctx.warn);
    this.db = opened.db;
    this.releaseDb = opened.release;
    const only = this.f.snapshot === 'only';
    if (!only) await checkBinlogServer(this.q, this.ep.kind);
    this.tables = new CapturedTables(this.db, this.dialect);
    await this.tables.resolve(this.f.tables, ctx.warn);
    if (ctx.dryRun) return;
    const cfg = mysqlConfig(this.ep, ctx.warn);
    if (only) return this.startSnapshot(cfg, undefined, undefined);
    this.store = await openCaptureStore(this.db, [...this.tables.keys()][0]!, this.f);
    const state = this.f.start_position !== undefined ? undefined : await this.store.load();
    this.drainTarget = await binlogEnd(this.q, this.ep.kind === 'mariadb');
    if (state?.snapshot) {
      ctx.warn(resumeWarning(state.snapshot));
      return this.startSnapshot(cfg, state.snapshot, this.store);
    }
    // Exactly once: the position a sink keeps with its rows wins over the store's (not over start_position).
    const slot = this.f.slot_name ?? 'bridge_slot';
    this.handed.sink = await ChangeSinkPosition.open(ctx.sinkPositions, `cdc:${slot}`, `${this.ep.kind}:${slot}`, this.handed.naming);
    const kept = this.f.start_position === undefined ? await this.handed.sink?.load() : undefined;
    this.resume = kept?.partial;
    const start = this.f.start_position !== undefined ? parseStartPosition(this.f.start_position) : kept?.end ? (JSON.parse(kept.end) as BinlogPosition) : state?.position;
    if (start) return this.stream(start);
    if (this.f.snapshot === 'never') {
      // Kept at once: a run stopped before its first commit resumes here, not at a later end.
      await this.store?.savePosition(this.drainTarget, true);
      return this.stream(this.drainTarget);
    }
    return this.startSnapshot(cfg, undefined, this.store);
  }

  /** Opens the consistent read: resuming `progress`, or a new snapshot whose position is kept before its first row goes out. */
  private async startSnapshot(cfg: Record<string, unknown>, progress: SnapshotProgress | undefined, store: CaptureStateStore | undefined): Promise<void> {
    const read = await ConsistentRead.open(cfg, this.ep.kind === 'mariadb', this.ctx.warn);
    const p = progress ?? { join: read.join, done: [] };
    if (!progress) await store?.save({ snapshot: p });
    this.snapshot = new SnapshotPhase(read, [...this.tables.values()], this.dialect, p, store);
  }

  /** Starts reading the binlog at `from`. */
  private async stream(from: BinlogPosition): Promise<void> {
    this.received = { ...from };
    this.confirmed ??= from;
    const ops = new Set((this.f.operations ?? 'insert,update,delete,truncate').split(',').map((s) => s.trim().toLowerCase()));
    const database = this.ep.url!.path;
    const prev = this.assembler;
    this.assembler = new BinlogAssembler(database, this.tables, ops, this.f.source_metadata === true, this.ep.kind === 'mariadb' ? from.gtid : undefined);
    if (prev) this.assembler.adopt(prev);
    this.assembler.file = from.file;
    Object.assign(this.assembler, { schemaMessages: this.schemaMessages, lastPos: from, onSplit: this.warnSplit, resume: this.resume, star: this.tables.existing !== undefined });
    for (const t of this.tables.notCaptured) this.assembler.ignored.add(t);
    this.released.clear();
    this.failure = undefined;
    const serverId = this.f.server_id ?? defaultServerId(this.f.slot_name ?? 'bridge_slot');
    const reader = new BinlogReader(mysqlConfig(this.ep, this.ctx.warn), serverId, database, this.tables.existing ? true : [...this.tables.keys()], this.f.heartbeat_interval_ms ?? 10_000);
    this.reader = reader;
    const feed = new EventFeed(this.assembler, {
      released: (tx) => {
        this.received = this.assembler!.commits.get((tx[tx.length - 1] as { commit: bigint }).commit)!;
        this.released.push(tx);
        this.wakeup.notify();
      },
      introspect: async (name) => void ((await this.tables.introspect(name, this.ctx.warn, (t) => this.ctx.info?.(t))) || this.assembler?.ignored.add(name)),
      pause: () => reader.pause('schema'),
      resume: () => reader.resume('schema'),
      failed: (e) => this.fail(e),
    });
    await reader.start(from, { event: (evt) => feed.feed(evt), failed: (e) => this.fail(e) });
    (this.timer ??= setInterval(() => this.tick(), 1000)).unref();
  }

  private fail(e: unknown): void {
    if (!this.failure) this.failure = e instanceof BridgeError ? e : transientError(`binlog connection lost: ${(e as Error).message}`, e);
    this.wakeup.notify();
  }

  private idle(): boolean {
    return this.released.empty && this.released.inFlight === 0 && !this.assembler?.inTransaction;
  }

  /** Quiet: a position moved only by transactions of other tables is kept every heartbeat interval, not at each one (bridge's own checkpoint writes are such transactions). */
  private tick(): void {
    if (this.confirmed && this.store && Date.now() - this.store.positionSavedAt > (this.f.heartbeat_interval_ms ?? 10_000)) void this.store.savePosition(this.confirmed, false).catch(() => {});
    this.wakeup.notify();
  }

  /** Commit number `seq` confirmed: the position after it is the stream's (kept by the batch's ack, or by the next tick). */
  private confirm(seq: bigint): void {
    const pos = this.assembler?.commits.get(seq);
    if (!pos) return;
    for (const k of this.assembler!.commits.keys()) if (k <= seq) this.assembler!.commits.delete(k);
    for (const k of this.assembler!.partCommits) if (k <= seq) this.assembler!.partCommits.delete(k);
    this.confirmed = pos;
  }

  caughtUp(): boolean {
    return !this.snapshot && this.idle() && reached(this.received, this.drainTarget);
  }

  async next(max: number, signal: AbortSignal): Promise<SourceBatch | null> {
    return nextChanges(this.loop, max, signal);
  }

  /** The delivery loop shared with PostgreSQL's slot (sql/capture/change-loop.ts). */
  private readonly loop: ChangeLoop = {
    ...{ ended: () => this.over, failure: () => this.failure, restart: () => this.restart(), released: () => this.released, confirm: (c: bigint) => this.confirm(c) },
    ...{ copying: () => this.snapshot, copyOver: () => this.snapshotOver(), take: (max: number) => this.take(max), caughtUp: () => this.caughtUp(), wakeup: this.wakeup, copyMax: () => this.ctx.batchSize },
    draining: () => this.ctx.mode === 'copy' || this.ctx.exitWhenDrained,
  };

  /** Every snapshot row confirmed: the stream starts at the position the snapshot joins. */
  private async snapshotOver(): Promise<void> {
    const join = this.snapshot!.join;
    await this.snapshot?.close();
    this.snapshot = undefined;
    if (this.f.snapshot === 'only') {
      this.over = true;
      return;
    }
    await this.store?.savePosition(join, true);
    await this.stream(join);
  }

  private async restart(): Promise<void> {
    await this.reader?.stop();
    this.reader = undefined;
    // The stream goes on after the batches handed out (they are being written), else after what was confirmed.
    const handed = this.handed.end === undefined ? undefined : this.assembler?.commits.get(this.handed.end);
    this.resume = this.handed.partial;
    this.stream(handed ?? this.confirmed!).catch((e) => this.fail(e));
  }

  private take(max: number): SourceBatch {
    let end: BinlogPosition | undefined;
    const confirm = (seq: bigint): void => void (this.confirm(seq), (end = this.confirmed));
    // A sink that keeps positions gets the one after this batch: a part of a long transaction names how much of it.
    const b = this.released.batch(max, this.ctx.limit !== undefined, confirm, this.warnSplit, (end, last, inside) =>
      this.handed.after(end, last, inside || (end !== undefined && this.assembler!.partCommits.has(end))),
    );
    const ack = b.ack;
    return {
      ...b,
      ack: async (replies) => {
        await ack(replies);
        if (end) await this.store?.savePosition(end, true);
      },
    };
  }

  /** The sink keeps a mirror's columns in step: column changes come as schema messages. */
  sendSchemaChanges = (): boolean => (this.schemaMessages = true);
  private schemaMessages = false;

  async describeTable(_profile?: boolean, table?: string): Promise<DescribedTable | undefined> {
    const t = table === undefined ? this.tables.values().next().value : this.tables.get(table);
    return t?.describe();
  }

  checkpoint = (): string | undefined => (this.confirmed ? `${this.f.slot_name ?? 'bridge_slot'} at ${formatPosition(this.confirmed)}` : undefined);

  plan = async (): Promise<PlanItem[]> => capturePlan(this.ep.kind, [...this.tables.keys()], this.f);

  poolStats = (): PoolStats | undefined => this.db?.stats();

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.snapshot?.close((text) => this.ctx.info?.(text));
    await this.reader?.stop();
    this.reader = undefined;
    if (this.confirmed && !this.snapshot) await this.store?.savePosition(this.confirmed, false).catch(() => {});
    await this.store?.close();
    await this.releaseDb?.();
    this.releaseDb = undefined;
  }
}
