import type { Database } from '../database.js';

/** Open transactions as a kind lists them (see Dialect.openTransactions). */
export interface TransactionListing {
  /** Names of what is open; names starting with `~` are aliases of a transaction, matched but never noted. */
  open: Set<string>;
  /** Per session: the names and start times (ms, to the second) of the transactions it has open. */
  sessions?: Map<string, { name: string; startedMs: number }[]>;
  /** Set when this login cannot see other sessions' transactions: why, and the grant that fixes it. */
  hidden?: string;
  /** Per name, the session that holds it and when it started (ms), to say what holds a position back. */
  about?: Map<string, { session: string; startedMs: number }>;
}

/** Longest wait between two tries after a listing came back stale. */
const MAX_BACKOFF_MS = 1000;

interface Listing {
  /** Taken after every mark below this one. */
  mark: number;
  clock: boolean;
  listing: Promise<TransactionListing | undefined>;
}

/**
 * One list of other sessions' open transactions per database pool, shared by every cursor reader
 * on it. MySQL/MariaDB serve information_schema.INNODB_TRX from a cache they refresh only when
 * nobody read it for 100 ms: two readers listing in turn every 120 ms kept it stale for good, and no
 * tail's position ever moved. So readers of one process share a listing taken after their reads
 * (marks order the two), and after a stale one the next try waits a random, growing time, so that
 * bridge processes on one server drift apart instead of starving each other.
 */
export class TransactionWatch {
  private seq = 0;
  private last: Listing | undefined;
  private nextAt = 0;
  private stale = 0;
  private freshAt = Date.now();

  constructor(private readonly db: Database) {}

  /** Taken right after a read: a listing started later sees every transaction the read could not. */
  mark(): number {
    return ++this.seq;
  }

  /** How long listings have come back stale (0: the last one was fresh). */
  staleForMs(now: number): number {
    return this.stale ? now - this.freshAt : 0;
  }

  /**
   * Transactions open now, from a listing started after `mark` (one already taken or under way is
   * shared); undefined when none can be had this time. `clock`: see Dialect.openTransactions.
   */
  async since(mark: number, clock: boolean): Promise<TransactionListing | undefined> {
    const last = this.last;
    if (last && last.mark > mark && (last.clock || !clock)) return last.listing;
    if (Date.now() < this.nextAt) return undefined;
    const d = this.db.dialect;
    const taken: Listing = { mark: ++this.seq, clock, listing: Promise.resolve(undefined) };
    this.nextAt = Number.POSITIVE_INFINITY;
    taken.listing = this.db.withConnection((c) => d.openTransactions(c, clock, this.db.sessionIds())).then(
      (listing) => {
        this.settled(listing !== undefined);
        return listing;
      },
      (e: unknown) => {
        // A failed listing says nothing about the cache: tried again after the usual interval.
        this.nextAt = Date.now() + this.db.dialect.transactionListIntervalMs;
        throw e;
      },
    );
    this.last = taken;
    try {
      const listing = await taken.listing;
      if (!listing && this.last === taken) this.last = undefined;
      return listing;
    } catch (e) {
      if (this.last === taken) this.last = undefined;
      throw e;
    }
  }

  private settled(fresh: boolean): void {
    const now = Date.now();
    const every = this.db.dialect.transactionListIntervalMs;
    if (fresh) {
      this.stale = 0;
      this.freshAt = now;
      this.nextAt = now + every;
    } else {
      this.stale++;
      this.nextAt = now + every + Math.random() * Math.min(every * 2 ** this.stale, MAX_BACKOFF_MS);
    }
  }
}
