import type { Readable } from 'node:stream';
import type { Database } from '../sql/database.js';
import type { RowStream } from '../sql/kind.js';
import type { SqlResult } from '../sql/types.js';
import { fieldType, type MysqlConnection } from './driver.js';

type Field = Parameters<typeof fieldType>[0] & { name: string };
type RawConnection = {
  query(o: { sql: string; values: unknown[]; rowsAsArray: boolean }): { on(e: 'fields', f: (x: Field[]) => void): void; stream(o: { highWaterMark: number }): Readable };
  on(e: 'error' | 'end', f: (e?: unknown) => void): void;
  off(e: 'error' | 'end', f: (e?: unknown) => void): void;
  stream: { destroy(): void };
};

/**
 * A key range read by one SELECT whose rows the server streams, taken a batch at a time: one
 * statement per range instead of one per batch (each a round trip, a plan and an index descent,
 * and InnoDB's read-ahead broken at every page boundary). The socket is paused while the batches
 * wait, so memory stays a batch or two; the connection is held for the range, and one left
 * part-way is dropped (the rest of the result is still on its way).
 */
export class MysqlRowStream implements RowStream {
  private rows: Readable | undefined;
  private fields: SqlResult['fields'] = [];
  private failure: unknown;
  private ended = false;
  private done = false;
  private release: ((abandon: boolean) => void) | undefined;
  private held: Promise<void> | undefined;
  /** Wakes next() when rows arrive, the range ends or the connection fails. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly db: Database,
    private readonly sql: string,
    private readonly params: readonly unknown[],
  ) {}

  private open(): Promise<Readable> {
    let opened!: (s: Readable) => void;
    let failed!: (e: unknown) => void;
    const ready = new Promise<Readable>((res, rej) => ((opened = res), (failed = rej)));
    const released = new Promise<boolean>((res) => (this.release = res));
    this.held = this.db
      .withConnection(async (c) => {
        const conn = c as MysqlConnection;
        // The server waits on the socket while the sink catches up, up to 30 s before the range lets go
        // of its query (SnapshotReader): a server set to give up sooner would cut ranges off instead.
        await conn.query('SET SESSION net_write_timeout = 600');
        const raw = (conn.conn as unknown as { connection: RawConnection }).connection;
        const q = raw.query({ sql: this.sql, values: [...this.params], rowsAsArray: true });
        q.on('fields', (fs) => (this.fields = fs.map((f) => ({ name: f.name, type: fieldType(f) }))));
        // Rows held ahead of the batch being taken: 256, as a paged read held none (large rows stay bounded).
        const s = q.stream({ highWaterMark: 256 });
        const fail = (e?: unknown): void => {
          // A connection killed or cut mid-range ends the connection, and the query's stream hears nothing.
          this.failure ??= e ?? Object.assign(new Error('the connection was closed while the range was read'), { code: 'PROTOCOL_CONNECTION_LOST' });
          this.wake?.();
        };
        s.on('readable', () => this.wake?.());
        s.on('end', () => ((this.ended = true), this.wake?.()));
        s.on('error', fail);
        raw.on('error', fail);
        raw.on('end', fail);
        opened(s);
        const abandon = await released;
        raw.off('error', fail);
        raw.off('end', fail);
        if (abandon || this.failure) {
          conn.dead = true;
          // Not mysql2's destroy(), which only half-closes: the server, blocked writing the rest of
          // the range into a socket nobody reads, would wait on it for net_write_timeout.
          raw.stream.destroy();
        }
      })
      .catch((e: unknown) => failed(e));
    return ready;
  }

  /** Up to `max` rows, or null once the range has ended with nothing left. */
  async next(max: number): Promise<SqlResult | null> {
    if (this.done) return null;
    const s = (this.rows ??= await this.open());
    const rows: unknown[][] = [];
    while (rows.length < max) {
      if (this.failure) throw this.failure;
      // read() takes a row already here without a promise per row; null asks the socket for more.
      const row = s.read() as unknown[] | null;
      if (row !== null) rows.push(row);
      else if (this.ended) break;
      else await new Promise<void>((res) => (this.wake = res));
    }
    if (rows.length === 0 && this.ended) {
      this.done = true;
      this.release?.(false);
      await this.held;
      return null;
    }
    return { fields: this.fields, rows, affected: 0 };
  }

  /** Stops reading: a range not read to its end drops its connection. */
  async close(): Promise<void> {
    if (!this.release) return;
    this.release(!this.done);
    this.release = undefined;
    await this.held;
  }
}
