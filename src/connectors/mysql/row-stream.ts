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

const ABANDONED = Object.assign(new Error('the range was let go part-way'), { code: 'PROTOCOL_CONNECTION_LOST' });

/**
 * The server's limits on a statement's time (MariaDB max_statement_time, MySQL max_execution_time)
 * would cut a range off part-way as a fatal error: a range is one statement for as long as the sink
 * takes its rows. The server waits on the socket while the sink catches up, up to 30 s before the
 * range lets go of its query (SnapshotReader): one set to give up sooner would cut ranges off too.
 */
async function unlimited(conn: MysqlConnection): Promise<void> {
  await conn.query('SET SESSION net_write_timeout = 600');
  for (const v of ['max_statement_time', 'max_execution_time'])
    try {
      await conn.query(`SET SESSION ${v} = 0`);
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== 'ER_UNKNOWN_SYSTEM_VARIABLE') throw e; // else the other server's
    }
}

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
        await unlimited(conn);
        const raw = (conn.conn as unknown as { connection: RawConnection }).connection;
        const fail = (e?: unknown): void => {
          // A connection killed or cut mid-range ends the connection, and the query's stream hears nothing.
          this.failure ??= e ?? Object.assign(new Error('the connection was closed while the range was read'), { code: 'PROTOCOL_CONNECTION_LOST' });
          this.wake?.();
        };
        // A closed connection fails a query at once, before its stream could hear of it.
        if (conn.dead) throw Object.assign(new Error('the connection was closed before the range was read'), { code: 'PROTOCOL_CONNECTION_LOST' });
        raw.on('error', fail);
        raw.on('end', fail);
        const q = raw.query({ sql: this.sql, values: [...this.params], rowsAsArray: true });
        q.on('fields', (fs) => (this.fields = fs.map((f) => ({ name: f.name, type: fieldType(f) }))));
        // Rows held ahead of the batch being taken: 256, as a paged read held none (large rows stay bounded).
        const s = q.stream({ highWaterMark: 256 });
        s.on('readable', () => this.wake?.());
        s.on('end', () => ((this.ended = true), this.wake?.()));
        s.on('error', fail);
        opened(s);
        const abandon = await released;
        raw.off('error', fail);
        raw.off('end', fail);
        if (abandon || this.failure) {
          // Marked dead, the pool destroys it on release rather than hand it to a waiter.
          conn.dead = true;
          // Not mysql2's destroy(), which only half-closes: the server, blocked writing the rest of
          // the range into a socket nobody reads, would wait on it for net_write_timeout.
          raw.stream.destroy();
        }
      })
      .catch(failed);
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
    // A next() still waiting ends with the range (never the case from SnapshotReader, which closes between polls).
    if (!this.done) this.failure ??= ABANDONED;
    this.wake?.();
    this.release(!this.done);
    this.release = undefined;
    await this.held;
  }
}
