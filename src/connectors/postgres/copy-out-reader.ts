import type { Socket } from 'node:net';
import type { ChunkPool } from '../sql/write/chunk-buffer.js';

/** Whole rows of a COPY TO: their bytes in pool Buffers (tuples or lines only: no binary header or trailer), and the last row alone. */
export interface CopiedRows {
  chunks: Buffer[];
  count: number;
  last: Buffer;
}

type DataHandler = (chunk: Buffer) => void;
interface PgConnection {
  stream: Socket;
  query(text: string): void;
}

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const ERROR = 0x45; // 'E'
const BINARY_HEAD = 19;

/**
 * `COPY … TO STDOUT` read off the connection's socket by bridge (a pg Submittable): the server
 * sends one CopyData message per row, so rows are counted by message and their payloads copied
 * once, straight into pool Buffers. Through pg-copy-streams each row was a Buffer of its own,
 * joined again, then walked field by field to find where rows end: about half of the process's
 * CPU on a table of narrow rows. The socket is read only while `next` wants rows (the server
 * waits meanwhile); at CopyDone, or an ErrorResponse, the socket goes back to pg's parser with
 * the bytes after it, and pg reports CommandComplete, the error and ReadyForQuery as usual.
 */
export class CopyOutReader {
  private conn: PgConnection | undefined;
  private pgData: DataHandler | undefined;
  private data: Buffer = Buffer.alloc(0);
  private at = 0;
  /** Bytes of the current CopyData payload still to copy (0: at a message boundary). */
  private remaining = 0;
  private skip = 0;
  private head: number;
  private done = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  private readonly onReadable = (): void => this.wake?.();
  private settle!: { resolve: () => void; reject: (e: unknown) => void };
  /** Resolves once pg has the connection back (ReadyForQuery); rejects with the server's error. */
  readonly finished = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));

  constructor(
    private readonly text: string,
    private readonly format: 'text' | 'binary',
    private readonly pool: ChunkPool,
  ) {
    this.head = format === 'binary' ? BINARY_HEAD : 0;
    this.finished.catch(() => undefined);
  }

  // --- pg's Submittable: called by the Client when the query's turn comes, and with what its parser reads after the copy.
  submit(connection: PgConnection): void {
    this.conn = connection;
    const stream = connection.stream;
    const handlers = stream.listeners('data') as DataHandler[];
    if (handlers.length !== 1) throw new Error(`COPY TO needs the connection's one data handler (found ${handlers.length})`);
    this.pgData = handlers[0]!;
    stream.removeListener('data', this.pgData);
    stream.pause();
    stream.on('readable', this.onReadable);
    connection.query(this.text);
  }

  /** Set by pg when the connection has query_timeout: told the end, which clears its timer. */
  callback: ((e?: unknown) => void) | undefined;

  handleError(e: unknown): void {
    this.failure ??= e;
    this.settle.reject(e);
    this.wake?.();
    this.callback?.(e);
    this.callback = undefined;
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handleReadyForQuery(): void {
    this.settle.resolve();
    this.callback?.();
    this.callback = undefined;
  }

  /** Up to `max` whole rows; null once the COPY has ended and every row was handed out. */
  async next(max: number): Promise<CopiedRows | null> {
    const out: Buffer[] = [];
    let buf = this.pool.take();
    let off = 0;
    let count = 0;
    let lastPart = 0;
    let lastAt = 0;
    for (;;) {
      if (this.at >= this.data.length) {
        const c = this.done ? null : await this.read();
        if (c === null) break;
        this.data = c;
        this.at = 0;
      }
      if (this.remaining > 0) {
        // The rest of a row's payload: copied on, across pool Buffers when it does not fit.
        const n = Math.min(this.remaining, this.data.length - this.at);
        let from = this.at;
        let left = n;
        if (this.head > 0) {
          const h = Math.min(this.head, left);
          this.head -= h;
          from += h;
          left -= h;
        }
        while (left > 0) {
          if (off === buf.length) {
            out.push(buf);
            buf = this.pool.take();
            off = 0;
          }
          const k = this.data.copy(buf, off, from, from + Math.min(left, buf.length - off));
          off += k;
          from += k;
          left -= k;
        }
        this.at += n;
        this.remaining -= n;
        continue;
      }
      if (this.skip > 0) {
        const n = Math.min(this.skip, this.data.length - this.at);
        this.at += n;
        this.skip -= n;
        continue;
      }
      // A message starts: its code, its length, and for binary whether it is only the trailer (-1), after the header if none came before.
      const trailer = this.format === 'binary' ? this.head + 2 : 0;
      if (!this.whole(5 + trailer)) continue;
      const code = this.data[this.at]!;
      const len = this.data.readUInt32BE(this.at + 1) - 4;
      if (code === COPY_DATA) {
        // Only the trailer (after the header, when no row came), or a header sent alone: not rows.
        if ((trailer && len === trailer && this.data.readInt16BE(this.at + 5 + this.head) === -1) || (this.head > 0 && len === this.head)) {
          this.at += 5 + len;
          this.head = 0;
          continue;
        }
        if (count === max) break;
        count++;
        lastPart = out.length;
        lastAt = off;
        this.at += 5;
        this.remaining = len;
        continue;
      }
      if (code === COPY_DONE || code === ERROR) {
        // pg's parser takes it from here: CopyDone (then CommandComplete, ReadyForQuery), or the error.
        this.giveBack(this.data.subarray(this.at));
        this.data = Buffer.alloc(0);
        this.at = 0;
        break;
      }
      // CopyOutResponse, notices, parameter changes: not ours to act on.
      this.at += 5;
      this.skip = len;
    }
    if (this.failure !== undefined) {
      this.pool.give([buf, ...out]);
      throw this.failure;
    }
    if (count === 0) {
      this.pool.give([buf, ...out]);
      return null;
    }
    if (off > 0) out.push(buf.subarray(0, off));
    else this.pool.give([buf]);
    const tail = out.slice(lastPart);
    tail[0] = tail[0]!.subarray(lastAt);
    return { chunks: out, count, last: Buffer.concat(tail) };
  }

  /** Whether `n` bytes (or the whole message, if shorter) are at hand; else what is left is kept for the next chunk. */
  private whole(n: number): boolean {
    const have = this.data.length - this.at;
    if (have >= n) return true;
    if (have >= 5 && this.data.readUInt32BE(this.at + 1) + 1 <= have) return true;
    this.carry = this.data.subarray(this.at);
    this.data = Buffer.alloc(0);
    this.at = 0;
    return false;
  }

  private carry: Buffer | undefined;

  private async read(): Promise<Buffer | null> {
    const stream = this.conn!.stream;
    for (;;) {
      if (this.failure !== undefined || this.done) return null;
      const c = stream.read() as Buffer | null;
      if (c !== null) {
        const carry = this.carry;
        this.carry = undefined;
        return carry ? Buffer.concat([carry, c]) : c;
      }
      if (stream.destroyed) {
        this.handleError(new Error('the connection closed during COPY TO'));
        return null;
      }
      await new Promise<void>((resolve) => {
        const woken = (): void => {
          stream.removeListener('close', woken);
          this.wake = undefined;
          resolve();
        };
        this.wake = woken;
        stream.once('close', woken);
      });
    }
  }

  /** Hands the socket back to pg's parser, with the bytes from `rest` on. */
  private giveBack(rest: Buffer): void {
    this.done = true;
    const stream = this.conn!.stream;
    stream.removeListener('readable', this.onReadable);
    stream.on('data', this.pgData!);
    if (rest.length) this.pgData!(rest);
    // Flowing again once pg's handler is back (a 'data' listener alone does not resume a stream read() paused).
    process.nextTick(() => stream.resume());
  }
}
