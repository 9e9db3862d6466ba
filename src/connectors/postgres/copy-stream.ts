import type { Readable } from 'node:stream';
import { ChunkPool } from '../sql/write/chunk-buffer.js';
import type { Database } from '../sql/database.js';
import type { WireRows } from '../sql/row-set.js';
import { decodeTuple, lastCopyRow, parseCopyText } from './copy-out.js';
import { type CutRows, RowCutter } from './copy-row-cutter.js';
import type { PgConnection } from './driver.js';
import copyStreams from 'pg-copy-streams';

const { to } = copyStreams;

/**
 * 256 KB Buffers that batches read by COPY TO are gathered into, handed back by the PostgreSQL
 * sink once their COPY FROM committed. The driver delivers about 8 KB at a time; written as they
 * came, each was its own CopyData message and its own socket writes (about 70,000 per 1M rows).
 */
export const copyOutPool = new ChunkPool(64);

/** `chunks` copied into pool Buffers, 256 KB each but the last. */
function regroup(chunks: Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  let buf = copyOutPool.take();
  let off = 0;
  for (const c of chunks) {
    for (let at = 0; at < c.length; ) {
      if (off === buf.length) {
        out.push(buf);
        buf = copyOutPool.take();
        off = 0;
      }
      const n = c.copy(buf, off, at);
      off += n;
      at += n;
    }
  }
  if (off > 0) out.push(buf.subarray(0, off));
  else copyOutPool.give([buf]);
  return out;
}

/** Ends a stream closed before its end: the connection is dropped (a COPY TO cannot be stopped part-way). */
class Abandoned extends Error {}

/**
 * One `COPY (select) TO STDOUT` read batch by batch, on a connection held until it ends: the server
 * sends the rows of a long key range as one stream, and the reader cuts it into batches of whole
 * rows (text lines, or binary tuples), each with its last row for the next range's start. A range
 * the sink does not take yet waits on the socket (the server pauses), so memory stays a batch.
 */
export class CopyOutStream {
  private iterator: AsyncIterator<Buffer> | undefined;
  private stream: Readable | undefined;
  private finish: ((abandon: boolean) => void) | undefined;
  private held: Promise<void> | undefined;
  private readonly cutter: RowCutter;
  private done = false;

  constructor(
    private readonly db: Database,
    private readonly sql: string,
    private readonly columns: { name: string; dbType: string }[],
    private readonly format: 'text' | 'binary',
  ) {
    this.cutter = new RowCutter(format);
  }

  private async open(): Promise<AsyncIterator<Buffer>> {
    let opened!: (s: Readable) => void;
    let failed!: (e: unknown) => void;
    const ready = new Promise<Readable>((res, rej) => ((opened = res), (failed = rej)));
    const ended = new Promise<boolean>((res) => (this.finish = res));
    this.held = this.db
      .withConnection(async (c) => {
        const conn = c as PgConnection;
        const stream = conn.client.query(to(`COPY (${this.sql}) TO STDOUT${this.format === 'binary' ? ' (FORMAT binary)' : ''}`));
        opened(stream);
        if (await ended) {
          conn.dead = true;
          (conn.client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
          throw new Abandoned();
        }
      })
      .catch((e: unknown) => {
        if (!(e instanceof Abandoned)) failed(e);
      });
    this.stream = await ready;
    return this.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** Up to `max` whole rows, or null once the stream has ended with nothing left. */
  async next(max: number): Promise<WireRows | null> {
    this.iterator ??= await this.open();
    const cutter = this.cutter;
    for (;;) {
      if (cutter.scan(max) === max || this.done) {
        const cut = cutter.take();
        if (cut) return this.batch(cut);
        if (!cutter.onlyTrailer()) throw new Error(`COPY TO ended inside a row (${cutter.size} bytes left)`);
        return null;
      }
      const r = await this.iterator.next();
      if (r.done) {
        this.done = true;
        this.finish?.(false);
        await this.held;
        continue;
      }
      cutter.push(r.value);
    }
  }

  private batch(cut: CutRows): WireRows {
    const { count, lastChunk, lastAt } = cut;
    const columns = this.columns;
    const chunks = regroup(cut.chunks);
    if (this.format === 'text') return { kind: 'postgres', format: 'text', chunks, columns, count, parse: () => parseCopyText(chunks), last: () => lastCopyRow(chunks) };
    // The last tuple copied out alone: the driver's chunks are not kept for it.
    const tail = cut.chunks.slice(lastChunk);
    const lastTuple = Buffer.from(tail.length === 1 ? tail[0]!.subarray(lastAt) : Buffer.concat(tail).subarray(lastAt));
    return { kind: 'postgres', format: 'binary', chunks, columns, count, last: () => decodeTuple(lastTuple, 0, columns) };
  }

  /** Stops reading: a stream not read to its end drops its connection. */
  async close(): Promise<void> {
    if (!this.finish) return;
    this.finish(!this.done);
    this.finish = undefined;
    this.stream?.destroy();
    await this.held;
  }
}
