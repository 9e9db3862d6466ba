import type { PoolStats } from '../../core/route.js';

export interface PoolOptions {
  max: number;
  min: number;
  acquireTimeoutMs: number;
  idleTimeoutMs: number;
  maxLifetimeMs: number;
  testBeforeAcquire: boolean;
}

/** What a driver provides so the pool can manage its connections. */
export interface PoolFactory<C> {
  create(): Promise<C>;
  destroy(conn: C): Promise<void>;
  ping(conn: C): Promise<void>;
  /** Errors that mean the connection is unusable and must not return to the pool. */
  isBroken(conn: C, error: unknown): boolean;
  /** False once the driver saw the connection die while it sat idle (server restart, admin kill). */
  alive?(conn: C): boolean;
}

interface Slot<C> {
  conn: C;
  createdAt: number;
  idleSince: number;
}

/** Thrown when no connection became free within acquire_timeout_ms. */
export class AcquireTimeout extends Error {
  constructor(ms: number) {
    super(`no database connection became free within acquire_timeout_ms (${ms} ms)`);
  }
}

/**
 * One pool implementation for every SQL driver, so the contract's pool fields mean the same thing
 * on each kind and the progress view gets the same in-use / idle / waiting figures.
 */
export class Pool<C> {
  private readonly idle: Slot<C>[] = [];
  private readonly busy = new Map<C, Slot<C>>();
  private readonly waiters: { resolve(s: Slot<C>): void; reject(e: unknown): void; timer: NodeJS.Timeout }[] = [];
  private creating = 0;
  private closed = false;
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly factory: PoolFactory<C>,
    readonly options: PoolOptions,
  ) {
    this.reaper = setInterval(() => this.reap(), Math.min(options.idleTimeoutMs, 30_000));
    this.reaper.unref();
  }

  /** Opens min_connections at once; the first failure is the caller's (cannot connect). */
  async warm(): Promise<void> {
    const n = Math.max(this.options.min, 1);
    const made = await Promise.all(Array.from({ length: n }, () => this.factory.create()));
    const now = Date.now();
    for (const conn of made) this.idle.push({ conn, createdAt: now, idleSince: now });
  }

  /**
   * Opens connections in the background until `n` exist, for a user that will hold that many at
   * once (a sink writing two batches at a time): the second is ready when its first batch comes,
   * not opened then. A failure here is left to the next acquire, which reports its own.
   */
  prewarm(n: number): void {
    for (let have = this.size; have < Math.min(n, this.options.max); have++) {
      this.creating++;
      this.factory.create().then(
        (conn) => {
          this.creating--;
          const now = Date.now();
          if (this.closed) void this.factory.destroy(conn).catch(() => {});
          else {
            this.busy.set(conn, { conn, createdAt: now, idleSince: now });
            this.release(conn);
          }
        },
        () => void this.creating--,
      );
    }
  }

  async acquire(): Promise<C> {
    if (this.closed) throw new Error('pool is closed');
    for (;;) {
      const slot = this.idle.pop();
      if (!slot) break;
      if (this.expired(slot) || this.factory.alive?.(slot.conn) === false) {
        void this.factory.destroy(slot.conn).catch(() => {});
        continue;
      }
      if (this.options.testBeforeAcquire) {
        try {
          await this.factory.ping(slot.conn);
        } catch {
          void this.factory.destroy(slot.conn).catch(() => {});
          continue;
        }
      }
      this.busy.set(slot.conn, slot);
      return slot.conn;
    }
    if (this.size < this.options.max) {
      this.creating++;
      try {
        const conn = await this.factory.create();
        const now = Date.now();
        this.busy.set(conn, { conn, createdAt: now, idleSince: now });
        return conn;
      } finally {
        this.creating--;
      }
    }
    const slot = await new Promise<Slot<C>>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.findIndex((w) => w.timer === timer);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new AcquireTimeout(this.options.acquireTimeoutMs));
      }, this.options.acquireTimeoutMs);
      this.waiters.push({ resolve, reject, timer });
    });
    this.busy.set(slot.conn, slot);
    return slot.conn;
  }

  /** Returns a connection; `error` (when given and fatal to the connection) destroys it instead. */
  release(conn: C, error?: unknown): void {
    const slot = this.busy.get(conn);
    if (!slot) return;
    this.busy.delete(conn);
    // A connection known dead (closed while it was held) must not go to a waiter, which takes it unchecked.
    if (this.closed || (error !== undefined && this.factory.isBroken(conn, error)) || this.expired(slot) || this.factory.alive?.(conn) === false) {
      void this.factory.destroy(conn).catch(() => {});
      this.refillWaiter();
      return;
    }
    slot.idleSince = Date.now();
    const w = this.waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.resolve(slot);
    } else this.idle.push(slot);
  }

  /** Runs `fn` on a pooled connection, returning it (or destroying it when broken) afterwards. */
  async use<T>(fn: (conn: C) => Promise<T>): Promise<T> {
    const conn = await this.acquire();
    try {
      const out = await fn(conn);
      this.release(conn);
      return out;
    } catch (e) {
      this.release(conn, e);
      throw e;
    }
  }

  /** Every connection the pool holds, idle or in use. */
  connections(): C[] {
    return [...this.idle.map((s) => s.conn), ...this.busy.keys()];
  }

  stats(): PoolStats {
    return { inUse: this.busy.size + this.creating, idle: this.idle.length, waiting: this.waiters.length, max: this.options.max };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.reaper);
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error('pool is closed'));
    }
    await Promise.all(this.idle.splice(0).map((s) => this.factory.destroy(s.conn).catch(() => {})));
  }

  private get size(): number {
    return this.idle.length + this.busy.size + this.creating;
  }

  private expired(slot: Slot<C>): boolean {
    return Date.now() - slot.createdAt > this.options.maxLifetimeMs;
  }

  /** A destroyed connection frees a place: open a new one for whoever is waiting. */
  private refillWaiter(): void {
    const w = this.waiters.shift();
    if (!w) return;
    clearTimeout(w.timer);
    this.creating++;
    this.factory
      .create()
      .then((conn) => {
        const now = Date.now();
        w.resolve({ conn, createdAt: now, idleSince: now });
      }, w.reject)
      .finally(() => this.creating--);
  }

  private reap(): void {
    const now = Date.now();
    for (let i = this.idle.length - 1; i >= 0 && this.size > this.options.min; i--) {
      const s = this.idle[i]!;
      if (now - s.idleSince > this.options.idleTimeoutMs || this.expired(s)) {
        this.idle.splice(i, 1);
        void this.factory.destroy(s.conn).catch(() => {});
      }
    }
  }
}
