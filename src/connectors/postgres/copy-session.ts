import type { Writable } from 'node:stream';
import type { Database } from '../sql/database.js';
import type { PgConnection } from './driver.js';
// Loaded with the module, not at the first COPY: a dynamic import waits for turns of the event
// loop, which a synchronous source (SQLite) gives only every 50 ms (175 ms before the first COPY).
import copyStreams from 'pg-copy-streams';

const { from } = copyStreams;

/** When an open COPY is ended and committed. */
export interface SessionLimits {
  /** Batches in one COPY. */
  batches: number;
  /** Bytes of COPY data in one COPY. */
  bytes: number;
  /** A COPY that received nothing for this long is ended (the source is slower than the sink). */
  idleMs: number;
}

/** What a COPY's data starts and ends with around the batches' (binary COPY's header and trailer). */
export interface Frame {
  head: Buffer;
  tail: Buffer;
}

/**
 * One `COPY … FROM STDIN` on a held connection, fed batch after batch: bytes go to the server as
 * soon as they are encoded, and every batch in it is confirmed when the COPY commits.
 */
class Session {
  batches = 0;
  bytes = 0;
  private stream: Writable | undefined;
  /** The server refused the COPY (or the connection broke): nothing more is written to it. */
  private failed = false;
  /** Settles when the stream fails or closes. */
  private stopped: Promise<void> = new Promise<void>(() => {});
  private readonly started: Promise<void>;
  readonly committed: Promise<void>;

  constructor(
    db: Database,
    readonly sql: string,
    private readonly frame: Frame | undefined,
    /** Data goes out one COPY after another: the steps of every session of an appender, in order. */
    private readonly line: { chain: Promise<void> },
  ) {
    let opened!: () => void;
    const started = new Promise<void>((r) => (opened = r));
    // With a batch's position pending (exactly once), the COPY goes with it and COMMIT in one round trip.
    this.committed = db.atomicLoad(async (c, wrap) => {
      const stream = (c as PgConnection).client.query(from(wrap(sql)));
      this.stream = stream;
      // The stream may report more than one error; `committed` carries the first.
      stream.on('error', () => (this.failed = true));
      this.stopped = new Promise<void>((resolve) => {
        stream.once('error', () => resolve());
        stream.once('close', () => resolve());
      });
      opened();
      await new Promise<void>((resolve, reject) => {
        stream.once('finish', resolve);
        stream.once('error', reject);
      });
    });
    // A COPY that could not start (no connection) fails its batches through `committed`.
    this.committed.catch(() => opened());
    this.started = started;
    if (frame) void this.write([frame.head]);
  }

  /** Queues `chunks` after what was written before; resolves once the stream took them (backpressure). */
  write(chunks: Buffer[]): Promise<void> {
    return this.then(async (s) => {
      for (const chunk of chunks) {
        if (this.failed || s.destroyed) return;
        // One chunk at a time, each written through to the socket before the next: a chunk left
        // queued in the stream when the server refuses the COPY would be flushed to a connection
        // pg-copy-streams has let go of (a TypeError thrown in a socket event: the process dies).
        await Promise.race([new Promise<void>((resolve) => s.write(chunk, () => resolve())), this.stopped]);
      }
    });
  }

  /** Ends the COPY after everything queued: the server commits it. */
  end(): void {
    if (this.frame) void this.write([this.frame.tail]);
    void this.then(async (s) => {
      s.end();
    });
  }

  /** Runs `step` after the steps before it; a step that throws aborts the COPY (CopyFail), which fails `committed`. */
  private then(step: (s: Writable) => Promise<void>): Promise<void> {
    this.line.chain = this.line.chain.then(async () => {
      await this.started;
      const s = this.stream;
      if (!s || this.failed || s.destroyed) return;
      try {
        await step(s);
      } catch (e) {
        this.failed = true;
        s.destroy(e as Error);
      }
    });
    return this.line.chain;
  }
}

/**
 * Appends batches through a COPY kept open across them, ended after `limits`, when the column
 * list changes, when nothing arrives for `idleMs`, or on flush(). A COPY per batch made the server
 * wait on a round trip and a commit every 2,048 rows; here it reads a steady stream. While one COPY
 * commits, the next batches open another on a second connection.
 */
export class CopyAppender {
  private open: Session | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** COPYs ended and not yet committed. */
  private committing = 0;
  /**
   * The order data is sent in: a COPY's data goes out after the previous COPY's last byte, so one
   * server backend at a time receives rows (two receiving at once cost the server ~25 % more CPU in
   * contention); the next COPY is opened meanwhile, and takes over as the previous one commits.
   */
  private readonly line = { chain: Promise.resolve() };

  constructor(
    private readonly db: Database,
    private readonly limits: SessionLimits,
  ) {}

  /** Sends a batch's COPY data (whole rows, `frame` around a COPY's rows); resolves once the COPY holding it committed, rejects if it failed. */
  async append(sql: string, chunks: Buffer[], frame?: Frame): Promise<void> {
    if (this.open && this.open.sql !== sql) this.flush();
    let s = this.open;
    if (!s) {
      const fresh = (s = this.open = new Session(this.db, sql, frame, this.line));
      // A COPY that failed takes no more batches: the next ones open another.
      fresh.committed.catch(() => {
        if (this.open === fresh) this.flush();
      });
    }
    s.batches++;
    for (const c of chunks) s.bytes += c.length;
    const written = s.write(chunks);
    // A COPY carrying a batch's position holds that batch alone: the next batch's rows must not commit under it.
    if (s.batches >= this.limits.batches || s.bytes >= this.limits.bytes || this.db.positionPending()) this.flush();
    else this.arm();
    await written;
    await s.committed;
  }

  /**
   * Ends the open COPY, so the batches in it are committed without waiting for more; while
   * `waiting` (for the oldest batch), only if no COPY ended before it is still committing.
   */
  flush(waiting = false): void {
    if (waiting && this.committing > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const s = this.open;
    this.open = undefined;
    if (!s) return;
    this.committing++;
    const done = (): void => void this.committing--;
    s.committed.then(done, done);
    s.end();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.limits.idleMs);
  }
}
