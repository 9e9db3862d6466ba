import type { Readable } from 'node:stream';
import type { Database } from '../sql/database.js';
import type { WireRows } from '../sql/row-set.js';
import { decodeTuple, lastCopyRow, parseCopyText } from './copy-out.js';
import type { PgConnection } from './driver.js';
import copyStreams from 'pg-copy-streams';

const { to } = copyStreams;

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
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes a row, from the last batch (0: walk whatever arrives). */
  private perRow = 0;
  private header = true;
  private done = false;

  constructor(
    private readonly db: Database,
    private readonly sql: string,
    private readonly columns: { name: string; dbType: string }[],
    private readonly format: 'text' | 'binary',
  ) {}

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
    for (;;) {
      // What arrived is joined and walked only once it may hold the batch (bytes a row so far × rows):
      // walking it chunk after chunk would go over the same bytes again and again.
      if (this.done || this.size >= this.perRow * max) {
        const data = this.joined();
        const cut = this.cut(data, max);
        if (cut && (cut.rows === max || this.done)) {
          this.perRow = cut.end / cut.rows;
          return this.batch(data, cut.end, cut.rows, cut.last);
        }
        if (this.done) return null;
        this.perRow = cut ? (data.length / cut.rows) * 1.05 : data.length * 2;
      }
      const r = await this.iterator.next();
      if (r.done) {
        this.done = true;
        this.finish?.(false);
        await this.held;
        continue;
      }
      this.parts.push(r.value);
      this.size += r.value.length;
    }
  }

  /** What has arrived as one buffer, the binary header taken off. */
  private joined(): Buffer {
    let data = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    if (this.header && this.format === 'binary' && data.length >= 19) {
      data = data.subarray(19 + data.readUInt32BE(15));
      this.header = false;
    }
    this.parts = [data];
    this.size = data.length;
    return data;
  }

  /** Where the first `max` whole rows of `data` end (or all the whole rows there are), and where the last of them starts (binary). */
  private cut(data: Buffer, max: number): { end: number; rows: number; last: number } | undefined {
    if (this.header && this.format === 'binary') return undefined;
    let rows = 0;
    let off = 0;
    let last = 0;
    if (this.format === 'text') {
      while (rows < max) {
        const nl = data.indexOf(10, off);
        if (nl < 0) break;
        off = nl + 1;
        rows++;
      }
    } else {
      while (rows < max && off + 2 <= data.length) {
        const fields = data.readInt16BE(off);
        if (fields < 0) break; // the trailer
        let p = off + 2;
        for (let f = 0; f < fields && p !== -1; f++) p = p + 4 <= data.length ? p + 4 + Math.max(0, data.readInt32BE(p)) : -1;
        if (p === -1 || p > data.length) break;
        last = off;
        off = p;
        rows++;
      }
    }
    return rows ? { end: off, rows, last } : undefined;
  }

  private batch(data: Buffer, end: number, count: number, lastStart: number): WireRows {
    const rows = data.subarray(0, end);
    const rest = data.subarray(end);
    // The binary trailer (a field count of -1) is all that is left at the end.
    this.parts = this.done && this.format === 'binary' && rest.length <= 2 ? [] : [rest];
    this.size = this.parts.length ? rest.length : 0;
    const columns = this.columns;
    const chunks = [rows];
    if (this.format === 'binary') return { kind: 'postgres', format: 'binary', chunks, columns, count, last: () => decodeTuple(rows, lastStart, columns) };
    return { kind: 'postgres', format: 'text', chunks, columns, count, parse: () => parseCopyText(chunks), last: () => lastCopyRow(chunks) };
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
