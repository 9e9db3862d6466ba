import type { Message } from '../../../core/message.js';
import { sleep } from '../../../core/wakeup.js';
import { Frontier, type Position } from './cursor-frontier.js';
import type { CursorQuery } from './cursor-query.js';
import type { Database } from '../database.js';
import type { TransactionListing } from './transaction-watch.js';
import type { SqlResult } from '../types.js';

export interface LateRowsOptions {
  db: Database;
  q: CursorQuery;
  table: string;
  select: string;
  lagMs: number;
  /** Rows delivered above the frontier past which nothing more is read (the sink's position keeps them): no sweep adds to them. */
  maxAbove: number;
  warn(text: string): void;
  /** Rows as messages (the reader's own rendering and ids). */
  messages(res: SqlResult): Message[];
}

const NONE: TransactionListing = { open: new Set() };
/** How often windows are closed while a backlog is read. */
const CLOSE_EVERY_MS = 25;
/** How often a tail blocked by an open transaction re-reads what it waits on (see sweep); twice as long after each that found nothing, up to a minute. */
const SWEEP_EVERY_MS = 5000;
const SWEEP_MAX_MS = 60_000;

/**
 * The part of cursor paging that finds rows committed late (see Frontier): lists other sessions'
 * transactions no more often than the kind allows, closes the windows whose transactions have
 * ended by re-reading them, and warns when a transaction keeps the frontier back for long.
 */
export class LateRows {
  readonly frontier: Frontier;
  /** Whether windows are kept: the kind lists open transactions, or a lag was asked for. */
  tracking = false;
  private watching = false;
  private closedAt = 0;
  /** Taken right after this reader's last read: a listing started later can close its windows. */
  private readMark: number | undefined;
  /** The read mark the last listing was asked for (see list). */
  private listedAfter: number | undefined;
  private blockedSince = 0;
  private sweptAt = 0;
  private sweepEvery = SWEEP_EVERY_MS;
  /** Who holds each transaction name listed, and since when (see holders). */
  private about = new Map<string, { session: string; startedMs: number }>();

  constructor(
    private readonly o: LateRowsOptions,
    start: Position | undefined,
  ) {
    this.frontier = new Frontier(start, o.lagMs);
  }

  /** Finds out whether other sessions' transactions can be seen (a missing privilege is warned about). */
  async start(): Promise<void> {
    const d = this.o.db.dialect;
    const blind = d.tracksTransactions ? await d.transactionBlindness(this.o.db) : undefined;
    this.watching = d.tracksTransactions;
    this.tracking = this.watching || this.o.lagMs > 0;
    if (blind) this.blind(blind);
  }

  /** Other sessions' transactions cannot be seen: warns, and stops waiting for them (windows read so far close as they are). */
  private blind(why: string): void {
    this.o.warn(`cursor paging on ${this.o.table} cannot wait for rows committed out of order: ${why}. Rows a slow transaction commits below the position can be missed; use publication= (change capture) or grant it.`);
    this.watching = false;
    this.tracking = this.o.lagMs > 0;
    if (!this.tracking && this.frontier.high && this.frontier.pending) this.frontier.close(this.frontier.high);
  }

  /** Called right after each read of the table. */
  noteRead(): void {
    if (this.watching) this.readMark = this.o.db.transactions.mark();
  }

  /** After a poll: closes the windows that can close (every poll once caught up, a few times a second while reading a backlog). */
  async afterRead(caughtUp: boolean, now: number): Promise<Message[]> {
    if (!this.tracking || !this.frontier.pending || (!caughtUp && now - this.closedAt < CLOSE_EVERY_MS)) return [];
    this.closedAt = now;
    // Listed after the rows were read: a transaction that could commit below them is open now, or has ended.
    const open = await this.list();
    if (!open) {
      this.warnIfBlocked(now);
      return [];
    }
    this.frontier.observe(open.open, now);
    const late = await this.close(open, now);
    // Caught up and kept waiting a while: what committed below meanwhile is delivered all the same.
    if (late.length || !caughtUp || !this.blockedSince || now - this.blockedSince < SWEEP_EVERY_MS) return late;
    return this.sweep(now);
  }

  /** Drained with windows open: waits (up to `ms`) for their transactions, so a run that stops then keeps an up-to-date position. */
  async settle(ms: number): Promise<Message[]> {
    const start = Date.now();
    while (this.tracking && this.frontier.pending && Date.now() - start < ms) {
      await sleep(Math.max(20, this.o.db.dialect.transactionListIntervalMs));
      // A listing newer than the last: the one taken after the read would show the same transactions open for good.
      const open = await this.list(true);
      if (!open) continue;
      this.frontier.observe(open.open, Date.now());
      const late = await this.close(open, Date.now());
      if (late.length || !this.frontier.pending) return late;
    }
    return [];
  }

  /** Other sessions' open transactions, listed after this reader's reads (`fresh`: started now); undefined when not listed this time. */
  private async list(fresh = false): Promise<TransactionListing | undefined> {
    if (!this.watching) return NONE;
    const watch = this.o.db.transactions;
    const clock = ['timestamp', 'timestamptz', 'date', 'time'].includes(this.o.q.column.type);
    // The first listing after a read may be one taken for another reader; later ones must be newer than
    // it, or a transaction it caught open (even one committing) would stay open for good.
    const reuse = !fresh && this.readMark !== undefined && this.readMark !== this.listedAfter;
    this.listedAfter = this.readMark;
    const open = await watch.since(reuse ? this.readMark! : watch.mark(), clock);
    if (open?.about) {
      // Names of ended transactions are dropped now and then; the blockers' stay while they are listed.
      if (this.about.size > 10_000) this.about = new Map();
      for (const [name, a] of open.about) this.about.set(name, a);
    }
    if (open?.hidden === undefined) return open;
    this.blind(open.hidden);
    return this.tracking ? NONE : undefined;
  }

  /** Closes the windows whose transactions have ended: re-reads them and returns the rows committed late. */
  private async close(open: TransactionListing, now: number): Promise<Message[]> {
    const d = this.o.db.dialect;
    const end = this.frontier.closable((member, notedAt) => d.stillOpen(member, open, notedAt), now);
    if (!end) {
      this.warnIfBlocked(now);
      return [];
    }
    this.blockedSince = 0;
    this.sweepEvery = SWEEP_EVERY_MS;
    const { late } = await this.reread(end);
    this.frontier.close(end);
    return late;
  }

  /**
   * Windows that cannot close yet (a transaction open when they read is open still, perhaps a
   * long writer that never touches this table): the rows committed below the highest read since,
   * by transactions that have ended, are there to read. They are delivered now and counted as
   * delivered above the frontier, which waits. At most every SWEEP_EVERY_MS; none while a window
   * can close the usual way.
   */
  async sweep(now: number): Promise<Message[]> {
    const high = this.frontier.high;
    if (!this.tracking || !this.frontier.pending || !high || now - this.sweptAt < this.sweepEvery || this.frontier.above >= this.o.maxAbove) return [];
    this.sweptAt = now;
    const { late, ids } = await this.reread(high);
    this.frontier.deliverEarly(ids);
    // An idle writer holding the frontier for hours: the range is re-read less and less often.
    this.sweepEvery = late.length ? SWEEP_EVERY_MS : Math.min(SWEEP_MAX_MS, this.sweepEvery * 2);
    return late;
  }

  /** Re-reads (frontier, end]: the rows there not delivered yet, as messages, and their identities. */
  private async reread(end: Position): Promise<{ late: Message[]; ids: string[] }> {
    const d = this.o.db.dialect;
    const q = this.o.q;
    const params: unknown[] = [];
    const range = q.between(this.frontier.frontier, end, params);
    const t = d.table(this.o.table);
    // Keys first (an index-only scan with an index on (cursor, key)); whole rows only when some are missing.
    const keys = q.keyed ? await this.o.db.query(`SELECT ${q.order.map((c) => d.quote(c.name)).join(', ')} FROM ${t} WHERE ${range}`, params) : undefined;
    let missing = keys ? this.frontier.missing(keys.rows.map(q.identityOf(keys))) : undefined;
    if (missing && !missing.length) return { late: [], ids: [] };
    const res = await this.o.db.query(`SELECT ${this.o.select} FROM ${t} WHERE ${range} ORDER BY ${q.orderBy()}`, params);
    const id = q.identityOf(res);
    missing ??= this.frontier.missing(res.rows.map(id));
    const want = new Map<string, number>();
    for (const m of missing) want.set(m, (want.get(m) ?? 0) + 1);
    const rows = res.rows.filter((r) => {
      const k = id(r);
      const n = want.get(k) ?? 0;
      if (n > 0) want.set(k, n - 1);
      return n > 0;
    });
    return { late: this.o.messages({ ...res, rows }), ids: rows.map(id) };
  }

  /** What the oldest open window waits for, for people: `pid 4242 (open for 35 s)`, a few of them. */
  holders(now: number): string {
    const names = this.frontier.blockers();
    const shown = names.slice(0, 3).map((n) => {
      const a = this.about.get(n) ?? this.about.get(n.slice(2, n.lastIndexOf('|')));
      return a ? `${a.session} (open for ${Math.max(0, Math.round((now - a.startedMs) / 1000))} s)` : n;
    });
    if (names.length > 3) shown.push(`${names.length - 3} more`);
    return shown.length ? shown.join(', ') : 'transactions not listed yet';
  }

  /** Stopped with windows open: says which transactions keep the saved position below what was delivered. */
  heldBack(cursorId: string | undefined): void {
    const f = this.frontier.frontier;
    this.o.warn(
      `cursor_id ${cursorId}: position not saved past ${f ? this.o.q.describe(f) : 'the start'} (read up to ${this.o.q.describe(this.frontier.high!)}): ` +
        `transactions open when it read could still commit rows below that, held by ${this.holders(Date.now())}; ` +
        `the next run reads again from ${f ? this.o.q.describe(f) : 'the start'} and delivers those rows again (at least once)`,
    );
  }

  private warnIfBlocked(now: number): void {
    if (this.frontier.pending === 0) return;
    if (this.blockedSince === 0) this.blockedSince = now;
    else if (now - this.blockedSince > 60_000) {
      this.blockedSince = now;
      const f = this.frontier.frontier;
      const stale = this.o.db.transactions.staleForMs(now);
      const why =
        stale > 30_000
          ? `a fresh list of open transactions for ${Math.round(stale / 1000)} s: the server refreshes it only when nobody read it for a moment, and another client reads it constantly (on MySQL/MariaDB, information_schema.INNODB_TRX more often than every 100 ms)`
          : `transactions that were open when it read past ${f ? this.o.q.describe(f) : 'the start'} (${this.holders(now)})`;
      this.o.warn(`cursor paging on ${this.o.table} has waited a minute for ${why}; ${this.frontier.above} rows are delivered above the saved position and would come again after a restart`);
    }
  }
}
