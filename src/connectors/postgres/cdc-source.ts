import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, transientError } from '../../core/errors.js';
import type { DescribedTable, PlanItem, PoolStats, Source, SourceBatch, SourceContext } from '../../core/route.js';
import { Wakeup } from '../../core/wakeup.js';
import type { Database } from '../sql/database.js';
import { openDatabase } from '../sql/open-database.js';
import type { TableInfo } from '../sql/types.js';
import { parsePgArray } from './array.js';
import { describeListed, explainStreamError, introspectAll, lostTemporarySlot, slotMaker } from './cdc-setup.js';
import { pgConfig } from './driver.js';
import { postgresKind } from './index.js';
import { RELEASED_MAX, ReleasedChanges, TRANSACTION_PART, WHOLE_TRANSACTION_MAX } from '../sql/capture/change-batches.js';
import { nextChanges, type ChangeLoop } from '../sql/capture/change-loop.js';
import { ChangeAssembler } from './cdc-changes.js';
import { PG_NAMING, resumeFromSink } from './cdc-resume.js';
import { CopyPhase, InitialCopy } from './cdc-initial-copy.js';
import { beginCapture, capturePlan } from './cdc-start.js';
import { captureConfig, listCaptured, type CaptureConfig } from './cdc-config.js';
import { LagWatch, stopCapture } from './cdc-stop.js';
import { NewTables } from './cdc-new-tables.js';
import { describeRelation, seedShapes } from './cdc-relation.js';
import { formatLsn, type PgOutputMessage } from './pgoutput.js';
import { HandedChanges } from '../sql/capture/change-position.js';
import { ReplicationStream } from './replication-stream.js';
import { InProgressRun } from './cdc-in-progress.js';

/**
 * Change capture through a logical replication slot with pgoutput (decisions §3): one message per
 * inserted, updated or deleted row of the table, released when its transaction commits. The slot's
 * confirmed position moves only past transactions whose every message the sink confirmed; while
 * nothing is pending it follows the server's keepalives, so WAL does not pile up on quiet tables.
 * A message's id comes from its transaction's commit LSN and its place in it: stable across restarts.
 */
export class CdcSource implements Source {
  readonly durablePosition = true;
  readonly streamsChanges = true;
  private db!: Database;
  private releaseDb: (() => Promise<void>) | undefined;
  private stream: ReplicationStream | undefined;
  private ctx!: SourceContext;
  private changes!: ChangeAssembler;
  private tables: string[] = [];
  private infos = new Map<string, TableInfo>();
  /** Made by this run, dropped with the slot by drop_slot; drained: the run ended as asked (drop_slot applies). */
  private createdPublication = false;
  private drained = false;
  private schemaMessages = false;
  private released!: ReleasedChanges;
  private confirmed = 0n;
  private received = 0n;
  private drainTarget = 0n;
  private failure: BridgeError | undefined;
  /** A stop came while the slot was being created, or snapshot=only copied the table: nothing to stream. */
  private stoppedEarly = false;
  private readonly wakeup = new Wakeup();
  private timer: NodeJS.Timeout | undefined;
  private readonly lag = new LagWatch();
  /** snapshot=initial: the rows that existed before the slot, delivered before its stream. */
  private copying: CopyPhase | undefined;
  /** Where the batches handed out end, and the sink's position (exactly once) when it keeps one. */
  private readonly handed = new HandedChanges(PG_NAMING);
  /** Large transactions streamed while in progress, into a sink that holds them open (cdc-in-progress.ts). */
  private readonly inProgress = new InProgressRun((t) => this.ctx.warn(t), () => this.wakeup.notify());

  constructor(
    private readonly ep: Endpoint,
    private readonly f: CaptureConfig = captureConfig(ep),
  ) {}

  private readonly q = async (sql: string, params?: unknown[]) => (await this.db.query(sql, params)).rows;

  async open(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    this.released = new ReleasedChanges(Math.max(RELEASED_MAX, ctx.batchSize * 8), { pause: () => this.stream?.pause(), resume: () => this.stream?.resume() }, (lsn) => `lsn ${formatLsn(lsn)}`);
    if (!this.f.dedicated) postgresKind.dialect.table(this.f.listed);
    const opened = await openDatabase(this.ep, postgresKind, ctx.warn);
    this.db = opened.db;
    this.releaseDb = opened.release;
    this.tables = await listCaptured(this.ep, this.f, this.db, ctx.warn);
    const render = { timestamps: (this.ep.fields.timestamps as 'text' | 'rfc3339') ?? 'text', parseArray: parsePgArray };
    this.changes = new ChangeAssembler(this.tables, this.f.source_metadata, render, this.f.operations, this.schemaMessages ? (rel) => describeRelation(this.q, rel) : undefined);
    this.infos = await introspectAll((s, p) => this.db.query(s, p), this.tables);
    const fresh = this.f.dedicated ? await NewTables.open(this.db, this.f.listed, { warn: ctx.warn, info: (t) => ctx.info?.(t), adopted: (t) => this.tables.push(t) }) : undefined;
    this.changes.adopt = fresh && ((schema, name, keyed) => fresh.adopt(schema, name, keyed));
    // snapshot=only: one consistent copy of the tables, and nothing else (no slot, no publication).
    if (this.f.snapshot === 'only') return void (ctx.dryRun || (this.copying = await CopyPhase.open(this.initialCopy(), {}, undefined, ctx.warn)));
    await this.inProgress.prepare(this.q as never, ctx.limit);
    const stream = this.newStream();
    const maker = ctx.stop && slotMaker(this.db, this.ep, ctx.warn, ctx.stop);
    const { ready, start } = await beginCapture({ db: this.db, q: this.q, stream, f: this.f, tables: this.tables, dryRun: ctx.dryRun, maker, failed: (e) => this.copyStreamFailed(e) });
    this.createdPublication = ready.createdPublication;
    this.drainTarget = ready.walEnd;
    if (start.stopped) ctx.warn(`stopped while replication slot ${this.f.slot_name} was being created (it waits for every transaction that has written): no slot was left`);
    if ((this.stoppedEarly = start.stopped === true) || ctx.dryRun) return;
    // Exactly once: the sink's position wins over the slot's (the slot is confirmed up to it once streaming).
    const kept = await resumeFromSink(this.ctx.sinkPositions, this.f.slot_name, this.changes);
    this.handed.sink = kept?.sinkPos;
    if (kept && kept.end > this.confirmed) this.confirmed = kept.end;
    if (start.copy?.snapshot && this.schemaMessages) await seedShapes(this.q, this.tables, (t, cols) => this.changes.shapesSeen?.seed(t, cols));
    if ('copy' in start && start.copy) {
      this.stream = stream;
      this.copying = await CopyPhase.open(this.initialCopy(), start.copy, start.progress, ctx.warn);
    } else await this.streamFromSlot(stream);
    this.lag.start(this.q, this.f.slot_name);
  }

  private initialCopy = (): InitialCopy => new InitialCopy(pgConfig(this.ep, this.ctx.warn), this.tables, this.infos, this.changes);
  private newStream = (): ReplicationStream => new ReplicationStream(pgConfig(this.ep, this.ctx.warn), this.f.slot_name, this.f.publication, this.f.temporary_slot, this.f.startLsn, this.inProgress.wanted);

  /** The replication connection fails while the initial copy reads: a temporary slot is lost with it; a permanent one is streamed from a new connection. */
  private copyStreamFailed(e: unknown): void {
    if (this.f.temporary_slot) this.fail(e);
    else this.stream = undefined;
  }

  /** Opens the replication connection (or uses the one the slot was made on) and streams from the slot's confirmed position (a stream ended by a restart is not its successor's failure). */
  private async streamFromSlot(stream = this.newStream()): Promise<void> {
    this.changes.reset();
    this.released.clear();
    this.inProgress.begin(this.changes, this.released, stream.inProgress, this.handed);
    this.failure = undefined;
    this.stream = stream;
    try {
      await stream.start({
        message: (msg, walStart, xid) => void (this.inProgress.onMessage(msg, walStart, xid) || this.onMessage(msg, walStart)),
        keepalive: (walEnd, reply) => {
          if (walEnd > this.received) this.received = walEnd;
          if (this.idle() && !this.inProgress.active && !this.inProgress.due && this.received > this.confirmed) this.confirmed = this.received;
          if (reply) this.stream?.sendStatus(this.confirmed, false);
          this.wakeup.notify();
        },
        failed: (e) => void explainStreamError(e, this.q, this.f.publication, this.f.slot_name, this.f.listed).then((err) => this.stream === stream && this.fail(err.kind === 'fatal' ? e : err)),
      });
    } catch (e) {
      throw await explainStreamError(e, this.q, this.f.publication, this.f.slot_name, this.f.listed);
    }
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  private fail(e: unknown): void {
    // A temporary slot ends with its connection: what happened since cannot be streamed, so it is not retried.
    if (!this.failure) this.failure = e instanceof BridgeError ? e : this.f.temporary_slot ? lostTemporarySlot() : transientError(`replication connection lost: ${(e as Error).message}`, e);
    this.wakeup.notify();
  }

  private onMessage(msg: PgOutputMessage, walStart: bigint): void {
    const tx = this.changes.onMessage(msg, walStart);
    // A transaction over WHOLE_TRANSACTION_MAX goes on in parts: memory stays bounded (the socket pauses while they wait).
    const open = this.changes.openLength;
    if (!tx && open > 0 && (open >= WHOLE_TRANSACTION_MAX || (open >= TRANSACTION_PART && this.released.partial))) {
      this.released.push(this.changes.takeOpen());
      this.wakeup.notify(); // a reader that took everything waits for this part, not for the next tick
    }
    if (!tx) return;
    const end = (tx[tx.length - 1] as { commit: bigint }).commit;
    if (end > this.received) this.received = end;
    this.released.push(tx);
    this.wakeup.notify();
  }

  private idle = (): boolean => this.released.empty && this.released.inFlight === 0 && !this.changes.inTransaction;

  private tick(): void {
    // Quiet: ask for a keepalive, whose WAL position can then be confirmed.
    if (this.idle()) this.stream?.sendStatus(this.confirmed, true);
    else if (Date.now() - (this.stream?.lastStatus ?? 0) > this.f.heartbeatMs) this.stream?.sendStatus(this.confirmed, false);
    this.wakeup.notify();
  }

  private confirm(lsn: bigint): void {
    if (lsn > this.confirmed) this.confirmed = lsn;
    this.stream?.sendStatus(this.confirmed, false);
  }

  /** Nothing waits to be delivered and the stream has reached the WAL end it knows of. */
  caughtUp(): boolean {
    return !this.copying && this.idle() && this.received >= this.drainTarget;
  }

  async next(max: number, signal: AbortSignal): Promise<SourceBatch | null> {
    return nextChanges(this.loop, max, signal);
  }

  /** The delivery loop shared with the binlog (sql/capture/change-loop.ts). */
  private readonly loop: ChangeLoop = {
    ...{ ended: () => this.stoppedEarly, failure: () => this.failure, restart: () => this.restart(), released: () => this.released, confirm: (c: bigint) => this.confirm(c) },
    rereadDue: () => this.inProgress.due,
    ...{ copying: () => this.copying, copyOver: () => this.copyOver(), take: (max: number) => this.take(max), caughtUp: () => this.caughtUp(), wakeup: this.wakeup, copyMax: () => this.ctx.batchSize },
    draining: () => this.ctx.mode === 'copy' || this.ctx.exitWhenDrained,
    drained: () => void (this.drained = true),
    // Draining: ask for the server's WAL end now rather than at the next tick (ReplicationStream.askEnd).
    askEnd: () => void (this.idle() && this.stream?.askEnd(this.confirmed, () => this.wakeup.notify())),
  };

  /** Every copied row confirmed: the slot's stream takes over where the copy's snapshot ended. */
  private async copyOver(): Promise<void> {
    await this.copying?.close(true);
    this.copying = undefined;
    if (this.f.snapshot === 'only') this.stoppedEarly = this.drained = true;
    else await this.streamFromSlot(this.stream);
  }

  private async restart(): Promise<void> {
    clearInterval(this.timer);
    await this.stream?.end();
    this.stream = undefined;
    this.received = this.confirmed; // nothing of the new stream came yet: a drain waits for it
    // Changes not yet confirmed come again from the slot; those handed out in batches are skipped (they are being written).
    if (this.handed.end !== undefined || this.handed.partial) this.changes.resumeAfter(this.handed.end ?? 0n, this.handed.partial?.tx, this.handed.partial?.count);
    this.streamFromSlot().catch((e) => this.fail(e));
  }

  /** The next batch: whole source transactions (see takeTransactions). */
  private take(max: number): SourceBatch {
    const split = () => this.ctx.warn(`a source transaction has more than ${WHOLE_TRANSACTION_MAX} changes of ${this.f.listed}: it is applied in parts, and until its last part lands the sink shows part of it`);
    return this.released.batch(max, this.ctx.limit !== undefined, (lsn) => this.confirm(lsn), split, (end, last, inside) => this.handed.after(end, last, inside));
  }

  /** A captured table (the first unless named), so a sink can create a typed mirror of it (columns=auto + auto_create_table). */
  describeTable = async (_profile?: boolean, table?: string): Promise<DescribedTable | undefined> => describeListed((s, p) => this.db.query(s, p), this.infos, this.tables, table ?? this.tables[0]!);

  /** The sink keeps a mirror's columns in step (a database): column changes come as schema messages; it holds transactions open: large ones come as they are written. */
  sendSchemaChanges = (): boolean => (this.schemaMessages = true);
  sendInProgress = (): boolean => (this.inProgress.asked = true);

  /** The change-capture endpoint's tables, as bridge.table names them: each goes into the sink table of its name. */
  capturedTables = (): string[] | undefined => (this.f.dedicated ? this.tables : undefined);

  slotLagBytes = (): number | undefined => this.lag.bytes;
  checkpoint = (): string | undefined => this.f.snapshot === 'only' ? undefined : `slot ${this.f.slot_name}${this.f.temporary_slot ? ' (temporary)' : ''} confirmed at ${formatLsn(this.confirmed)}`;

  plan = async (): Promise<PlanItem[]> => capturePlan(this.q, { ...this.f, table: this.tables.join(', ') || this.f.listed });
  poolStats = (): PoolStats | undefined => this.db?.stats();

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.lag.stop();
    // drop_slot: only a run that ended as asked (drained, or a stop signal); a failed one resumes from its slot.
    const drop = this.f.drop_slot && (this.drained || this.ctx.stop?.aborted === true) && !this.failure;
    const again = this.f.snapshot === 'only' ? 'snapshot=only keeps no progress' : this.f.temporary_slot ? 'the slot was temporary' : drop ? 'drop_slot dropped the slot' : undefined;
    await this.copying?.close(false, (text) => this.ctx.info?.(text), again && `${again}, a new run copies again`);
    const stream = this.stream;
    this.stream = undefined;
    await stopCapture(this.q, stream, this.confirmed, this.f, drop ? { createdPublication: this.createdPublication } : undefined, this.ctx.info);
    await this.releaseDb?.();
    this.releaseDb = undefined;
  }
}
