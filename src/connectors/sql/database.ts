import { BridgeError, transientError } from '../../core/errors.js';
import type { PoolStats } from '../../core/route.js';
import type { KindDriver } from './kind.js';
import { AcquireTimeout, Pool } from './pool.js';
import type { PendingPosition } from './position/sink-position.js';
import { TransactionWatch } from './position/transaction-watch.js';
import type { SqlConnection, SqlResult } from './types.js';

/** A transaction kept open across awaits (a batch leased until the sink confirms it). */
export interface HeldTransaction {
  conn: SqlConnection;
  query(sql: string, params?: readonly unknown[]): Promise<SqlResult>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** A pool of one database plus the kind's error rules: every call comes back as a BridgeError. */
export class Database {
  private watch: TransactionWatch | undefined;

  constructor(
    readonly driver: KindDriver,
    readonly pool: Pool<SqlConnection>,
  ) {}

  get dialect() {
    return this.driver.dialect;
  }

  private limit: Promise<number | undefined> | undefined;

  /** The longest statement the server takes (KindDriver.statementLimit), asked once; undefined: no limit. */
  statementLimit(): Promise<number | undefined> {
    if (!this.driver.statementLimit) return Promise.resolve(undefined);
    // Asked again after a failure: the next batch may find the server back.
    this.limit ??= this.driver.statementLimit(this).catch((e: unknown) => {
      this.limit = undefined;
      throw e;
    });
    return this.limit;
  }

  private classify(e: unknown): BridgeError {
    if (e instanceof AcquireTimeout) return transientError(e.message, e);
    if (e instanceof BridgeError) {
      // A failed reconnect during the run is worth retrying, unlike at start.
      return e.kind === 'connect' ? new BridgeError('transient', e.message, { cause: e }) : e;
    }
    return this.driver.classify(e);
  }

  /**
   * A transaction a sink holds open for a source transaction in progress (SqlSink.writeHeld): while
   * set, every statement of this view runs in it, and none commits (its own commit does).
   */
  held: HeldTransaction | undefined;

  async query(sql: string, params?: readonly unknown[], reuse?: boolean): Promise<SqlResult> {
    try {
      if (this.held) return await this.held.conn.query(sql, params, reuse);
      return await this.pool.use((c) => c.query(sql, params, reuse));
    } catch (e) {
      throw this.classify(e);
    }
  }

  /** Runs `fn` on one pooled connection (for driver-specific protocols such as COPY). */
  async withConnection<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T> {
    try {
      if (this.held) return await fn(this.held.conn);
      return await this.pool.use(fn);
    } catch (e) {
      throw this.classify(e);
    }
  }

  /**
   * The position of the batch a sink is writing (exactly once, sink-position.ts): set on the sink's
   * own view of the database (forSink), never on the Database a source shares the pool with.
   */
  pending: PendingPosition | undefined;

  /** A view of this database for one sink: the same pool and rules, its own pending position. */
  forSink(): Database {
    const view = Object.create(this) as Database;
    view.pending = undefined;
    view.held = undefined;
    return view;
  }

  /**
   * Runs `fn` on one connection as the one transaction that writes a batch. Without a batch's
   * position pending it is `withConnection` (a COPY commits itself). With one, a kind that can send
   * the load statement (COPY), the position and COMMIT in one round trip does (Dialect.inlinePosition:
   * PostgreSQL's `BEGIN; COPY …; <position>; COMMIT` as one simple query; `fn` wraps its statement
   * with `wrap`); any other runs in BEGIN … COMMIT, which commits the position too. Three round trips
   * per batch (BEGIN, the position, COMMIT) made an exactly-once copy 13-16 % slower.
   */
  async atomicLoad<T>(fn: (conn: SqlConnection, wrap: (sql: string) => string) => Promise<T>): Promise<T> {
    if (this.held) return this.withConnection((c) => fn(c, (s) => s));
    const p = this.positionPending() ? this.pending! : undefined;
    const inline = p && this.dialect.inlinePosition?.(p);
    if (!p || !inline) return p ? this.transaction((c) => fn(c, (s) => s)) : this.withConnection((c) => fn(c, (s) => s));
    return this.withConnection(async (c) => {
      try {
        const out = await fn(c, (s) => `${this.dialect.beginWrite}; ${s}; ${inline}; COMMIT`);
        p.committed = true;
        return out;
      } catch (e) {
        // A failed statement leaves the session in the aborted transaction block the BEGIN opened.
        await c.query('ROLLBACK').catch(() => {});
        throw this.dialect.positionMoved?.(e, p) ?? e;
      }
    });
  }

  /** Whether a batch's position waits to be committed by the next write transaction on this database. */
  positionPending(): boolean {
    return this.pending !== undefined && !this.pending.committed;
  }

  /**
   * Inside a write transaction, just before COMMIT: moves the pending position of the batch (if
   * any). A second write transaction under one batch would commit rows after its position, which a
   * kill between the two would lose: that is a bug in a writer, and it stops the run.
   */
  private async commitPosition(conn: SqlConnection): Promise<void> {
    const p = this.pending;
    if (!p) return;
    if (p.committed) throw new BridgeError('fatal', 'a batch was written in two transactions after its position was committed (this is a bug, please report it)');
    await p.table.commitIn(conn, p);
    p.committed = true;
  }

  /** Runs `fn` in a transaction on one connection; rolls back and classifies on failure. */
  async transaction<T>(fn: (conn: SqlConnection) => Promise<T>, write = true): Promise<T> {
    if (this.held) return this.withConnection(fn);
    const tx = await this.begin(write);
    try {
      const out = await fn(tx.conn);
      await tx.commit();
      return out;
    } catch (e) {
      await tx.rollback();
      throw this.classify(e);
    }
  }

  async begin(write = true): Promise<HeldTransaction> {
    let conn: SqlConnection;
    try {
      conn = await this.pool.acquire();
    } catch (e) {
      throw this.classify(e);
    }
    try {
      await conn.query(write ? this.dialect.beginWrite : this.dialect.begin);
    } catch (e) {
      this.pool.release(conn, e);
      throw this.classify(e);
    }
    let done = false;
    let failure: unknown;
    const finish = async (sql: string): Promise<void> => {
      if (done) return;
      if (sql === 'COMMIT' && write) {
        try {
          await this.commitPosition(conn);
        } catch (e) {
          failure = e;
          await finish('ROLLBACK');
          throw e;
        }
      }
      done = true;
      try {
        await conn.query(sql);
        this.pool.release(conn, failure);
      } catch (e) {
        this.pool.release(conn, e);
        if (sql === 'COMMIT') throw this.classify(e);
      }
    };
    return {
      conn,
      query: async (sql, params) => {
        try {
          return await conn.query(sql, params);
        } catch (e) {
          failure = e;
          throw this.classify(e);
        }
      },
      commit: () => finish('COMMIT'),
      rollback: () => finish('ROLLBACK'),
    };
  }

  /** Other sessions' open transactions, listed once for every cursor reader of this pool. */
  get transactions(): TransactionWatch {
    return (this.watch ??= new TransactionWatch(this));
  }

  /** Server session ids of this pool's connections (bridge's own transactions are not waited for). */
  sessionIds(): string[] {
    return this.pool
      .connections()
      .map((c) => c.sessionId ?? '')
      .filter(Boolean);
  }

  stats(): PoolStats {
    return this.pool.stats();
  }
}
