import { envelopeValue, makeEnvelope, readEnvelope } from '../../../checkpoint/envelope.js';
import { Lease } from '../../../checkpoint/lease.js';
import type { Message } from '../../../core/message.js';
import type { PlanItem, SourceBatch } from '../../../core/route.js';
import { CursorSinkPosition } from '../position/cursor-position.js';
import { Frontier, type Position } from '../position/cursor-frontier.js';
import { CursorQuery } from '../position/cursor-query.js';
import { TieGuard, wholeRuns } from '../position/cursor-ties.js';
import { LateRows } from '../position/late-rows.js';
import { cursorPlan } from './read-cursor-plan.js';
import type { Reader } from './reader.js';
import { versionSeed } from './rows.js';
import type { LogicalType, SqlResult } from '../types.js';
import { warnNullCursor, warnRandomUuidCursor } from './cursor-warnings.js';
import type { CursorOptions } from './cursor-options.js';

export type { CursorOptions } from './cursor-options.js';

/** Key types whose exact text binds back as a comparison value on every kind. */
const TEXT_COMPARABLE = new Set<LogicalType>(['int', 'bigint', 'decimal', 'text', 'uuid', 'date', 'timestamp', 'timestamptz']);
/** Rows delivered above the frontier before reading stops to wait for it (memory, and duplicates after a crash). */
const MAX_ABOVE = 200_000;
/** The same, when a sink keeps the position: their identities go into every batch's position. */
const MAX_ABOVE_KEPT = 20_000;

/**
 * Cursor paging that loses nothing under concurrent writers. Pages are keyset on (cursor, key)
 * when the table has a primary key (a run of ties is read a page at a time), whole runs otherwise.
 * Rows committed late with a cursor value below what was read are found by the frontier (see
 * Frontier): the checkpoint stores the frontier, so a restart re-reads what was delivered above it
 * (duplicates, never losses).
 */
export class CursorReader implements Reader {
  readonly finite = false;
  private readonly q: CursorQuery;
  private late!: LateRows;
  private ties: TieGuard | undefined;
  /** Batches polled and neither acknowledged nor given back. */
  private unacked = 0;
  private givenBack = false;
  /** A batch given back held rows committed late: positions past them cannot be saved at close. */
  private lateGivenBack = false;
  /** How far the last acknowledged batch had read. */
  private ackedTo: Position | undefined;
  private saved: string | undefined;
  private resumed: string | undefined;
  private lease: Lease | undefined;
  private stored: string | undefined;
  private sinkPos: CursorSinkPosition | undefined;
  private readonly sourceName: string;
  private readonly isInt: boolean;
  /** The cursor is the table's integer primary key: values are unique (see Frontier.readDense). */
  private readonly dense: boolean;

  constructor(private readonly o: CursorOptions) {
    this.sourceName = `${o.db.dialect.kind}:${o.table}:${o.column.name}`;
    this.isInt = o.column.type === 'int' || o.column.type === 'bigint';
    const pk = o.primaryKey;
    this.dense = this.isInt && pk.length === 1 && pk[0]!.name === o.column.name;
    const usable = pk.length > 0 && pk.every((k) => TEXT_COMPARABLE.has(k.type)) && !(pk.length === 1 && pk[0]!.name === o.column.name);
    this.q = new CursorQuery(o.db.dialect, o.column, usable ? pk : []);
  }

  /** Takes the cursor_id's lease, loads the stored position, and finds out whether other sessions' transactions can be seen. */
  async start(lease: boolean, dryRun = false): Promise<void> {
    let start: Position | undefined;
    if (this.o.store && this.o.cursorId) {
      if (lease) {
        this.lease = new Lease(this.o.store, this.o.cursorId);
        await this.lease.acquire();
      }
      // A dry run creates nothing: before the first run the checkpoint table does not exist yet.
      const text = await this.o.store.load(this.o.cursorId).catch((e: unknown) => {
        if (!dryRun) throw e;
        this.stored = `nothing readable yet (${(e as Error).message.split('\n')[0]}); the first run creates the checkpoint table`;
        return undefined;
      });
      if (text !== undefined) {
        this.stored = text;
        const env = readEnvelope(text, this.sourceName, `${this.o.store.description} (cursor_id ${this.o.cursorId})`);
        const key = this.q.keyed && env.after?.length === this.q.key.length ? env.after : undefined;
        start = { value: envelopeValue(env), key };
        this.saved = this.q.describe(start);
        this.resumed = this.saved;
      }
    }
    // The sink's position wins: it was committed with the rows it stands for.
    this.sinkPos = await CursorSinkPosition.open(this.o.sinkPositions, this.sourceName, this.o.cursorId);
    const kept = await this.sinkPos?.load();
    if (kept) {
      start = kept.frontier;
      this.resumed = `${start ? this.q.describe(start) : 'the start'} (the position kept in ${this.sinkPos!.describe()})`;
      if (dryRun) this.stored = this.resumed;
    }
    this.late = new LateRows({ db: this.o.db, q: this.q, table: this.o.table, select: this.o.select ?? '*', lagMs: this.o.lagMs, maxAbove: this.maxAbove, warn: this.o.warn, messages: (res) => this.messages(res) }, start);
    if (kept?.high && kept.above.length) this.frontier.restore(kept.high, kept.above);
    await this.late.start();
    await warnNullCursor(this.o.db, this.o.table, this.o.column, this.o.warn);
    // Followed over time (a tail, or a position kept for the next run), not read once.
    if (this.o.cursorId !== undefined || this.o.settleMs === 0) await warnRandomUuidCursor(this.o.db, this.o.table, this.o.column, this.o.warn);
    // A unique integer cursor has no ties; the kinds that list open transactions wait for them instead.
    if (!this.late.tracking && !this.dense)
      this.ties = new TieGuard({ db: this.o.db, q: this.q, table: this.o.table, select: this.o.select ?? '*', warn: this.o.warn, messages: (res) => this.messages(res) });
  }

  /** Rows delivered above the frontier past which nothing more is read (fewer when a sink's position keeps them). */
  private get maxAbove(): number {
    return this.sinkPos ? MAX_ABOVE_KEPT : MAX_ABOVE;
  }

  private get frontier(): Frontier {
    return this.late.frontier;
  }

  /** The stored position this run continued from, when there was one. */
  resumedFrom(): string | undefined {
    return this.resumed === undefined ? undefined : `cursor_id ${this.o.cursorId} at ${this.resumed}`;
  }

  checkpoint(): string | undefined {
    if (!this.o.store || !this.o.cursorId) return undefined;
    return `${this.o.cursorId} in ${this.o.store.description} ${this.saved === undefined ? 'not saved yet (the next run reads from the start)' : `at ${this.saved}`}`;
  }

  /**
   * A clean stop: every batch was acknowledged or given back. The windows still open are given a
   * moment; if they close without rows committed late, the position saved is the frontier — or,
   * when read-ahead batches were given back, no further than the last acknowledged batch had read
   * (everything up to there was delivered and confirmed; nothing of the given-back reads was).
   */
  async close(): Promise<void> {
    try {
      if (this.late.tracking && this.unacked === 0 && !this.lateGivenBack && this.o.store && this.o.cursorId) {
        const late = this.frontier.pending ? await this.late.settle(1000) : [];
        const acked = this.ackedTo;
        if (late.length === 0) {
          if (!this.givenBack) await this.save(this.frontier.frontier);
          else if (acked) await this.save(this.frontier.isClosed(acked) ? acked : this.frontier.frontier);
        }
        if (this.frontier.pending && this.frontier.high) this.late.heldBack(this.o.cursorId);
      }
    } catch {
      // The stored position stays where the last acknowledgement put it: rows above it come again.
    } finally {
      await this.lease?.release();
    }
  }

  async poll(max: number): Promise<SourceBatch | null> {
    this.lease?.check();
    const now = Date.now();
    const d = this.o.db.dialect;
    const messages: Message[] = [];
    const before = this.frontier.frontier;
    let caughtUp = true;
    let readTo: Position | undefined;
    let read = 0;
    // Untracked kinds: ties committed since the last read, at its highest cursor value.
    if (this.ties) messages.push(...(await this.ties.reread(this.frontier.high)));
    read = messages.length;
    if (this.frontier.above < this.maxAbove) {
      const params: unknown[] = [];
      const res = await this.o.db.query(`SELECT ${this.o.select ?? '*'} FROM ${d.table(this.o.table)} WHERE ${this.q.after(this.frontier.high, params)} ORDER BY ${this.q.orderBy()}${d.limit(max)}`, params);
      const rows = !this.q.keyed && res.rows.length >= max ? await wholeRuns(this.o, res, max) : res.rows;
      this.late.noteRead();
      caughtUp = res.rows.length < max;
      if (rows.length) {
        const upTo = this.q.positionOf(res, rows[rows.length - 1]!);
        this.ties?.read(rows.map((r) => this.q.positionOf(res, r)), rows.map(this.q.identityOf(res)));
        if (!this.late.tracking) this.frontier.frontier = this.frontier.high = upTo;
        else if (!(this.dense && this.frontier.readDense(upTo, this.q.valuesOf(res, rows)))) this.frontier.read(upTo, rows.map(this.q.identityOf(res)), now);
        messages.push(...this.messages({ ...res, rows }));
        readTo = upTo;
        read += rows.length;
      }
    }
    try {
      messages.push(...(await this.late.afterRead(caughtUp, now)));
      if (messages.length === 0 && this.frontier.frontier === before && caughtUp && this.frontier.pending) {
        messages.push(...(await this.late.settle(this.o.settleMs)));
        // A copy about to end with windows still waiting: rows committed below by transactions that have ended are read now.
        if (messages.length === 0 && this.frontier.pending && this.o.settleMs > 0) messages.push(...(await this.late.sweep(Date.now())));
      }
    } catch (e) {
      // The position read has already moved past the rows read above: they are delivered now, and the
      // windows stay open for the next poll to close. (Thrown away, they were never read again.)
      if (messages.length === 0) throw e;
    }
    const frontier = this.frontier.frontier;
    if (messages.length === 0 && frontier === before) return null;
    this.unacked++;
    return {
      messages,
      position: this.position(),
      commit: this.sinkPos?.commit(this.frontier),
      ack: async () => {
        await this.save(frontier);
        this.unacked--;
        if (readTo) this.ackedTo = readTo;
      },
      release: async () => {
        this.givenBack = true;
        this.unacked--;
        if (messages.length > read) this.lateGivenBack = true;
      },
    };
  }

  private async save(frontier: Position | undefined): Promise<void> {
    if (!this.o.store || !this.o.cursorId || !frontier) return;
    this.lease?.check();
    await this.o.store.put(this.o.cursorId, JSON.stringify(makeEnvelope(this.sourceName, frontier.value, this.isInt, frontier.key)));
    this.saved = this.q.describe(frontier);
  }

  private messages(res: SqlResult): Message[] {
    return this.o.rows.rowsAsJson(res, 0, versionSeed(res, this.sourceName, this.o.primaryKey.map((k) => k.name), this.o.column.name));
  }

  private position(): string {
    const { high, frontier } = this.frontier;
    if (!high) return 'start';
    const h = this.q.describe(high);
    return frontier && frontier !== high ? `${h} (saved up to ${this.q.describe(frontier)})` : h;
  }

  async estimate(): Promise<number | null> {
    if (this.frontier.high === undefined) return this.o.db.dialect.estimateRows(this.o.db, this.o.table);
    const params: unknown[] = [];
    const r = await this.o.db.query(`SELECT COUNT(*) FROM ${this.o.db.dialect.table(this.o.table)} WHERE ${this.q.after(this.frontier.high, params)}`, params);
    return Number(r.rows[0]?.[0] ?? 0);
  }

  plan(): PlanItem[] {
    return cursorPlan(this.o, { q: this.q, start: this.frontier.frontier, dense: this.dense, tracking: this.late?.tracking, stored: this.stored });
  }
}
