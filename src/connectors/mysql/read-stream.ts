import type { PlanItem, SourceBatch } from '../../core/route.js';
import type { Database, HeldTransaction } from '../sql/database.js';
import type { Reader } from '../sql/read/reader.js';
import type { RowMessages } from '../sql/read/rows.js';
import type { SqlResult } from '../sql/types.js';
import { fieldType, type MysqlConnection } from './driver.js';
import { notResumable, numberedBatch } from '../sql/read/numbered-batch.js';

type Field = { name: string; columnType?: number; characterSet?: number; columnLength?: number };

/**
 * Snapshot of a MySQL/MariaDB table without a primary key: InnoDB has no row position a query can
 * page by, so the table is read by one streaming SELECT in a consistent-snapshot transaction,
 * paused between batches (the server waits on the socket; memory stays one batch). Not
 * resumable: a copy stopped part-way reads the table from its start again.
 */
export class StreamReader implements Reader {
  readonly finite = true;
  private tx: HeldTransaction | undefined;
  private iterator: AsyncIterator<unknown[]> | undefined;
  private fields: SqlResult['fields'] = [];
  private read = 0;
  private done = false;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly rows: RowMessages,
    /** The select list (FLOAT read as DOUBLE: the text protocol prints 6 digits of a FLOAT). */
    private readonly select: string,
  ) {}

  private async start(): Promise<AsyncIterator<unknown[]>> {
    this.tx = await this.db.begin(false);
    // The server waits on the socket while the sink catches up (retries included): not 60 s, as by default.
    await this.tx.query('SET SESSION net_write_timeout = 86400');
    // The promise API has no streaming query: its underlying callback connection does.
    const raw = ((this.tx.conn as MysqlConnection).conn as unknown as { connection: unknown }).connection as {
      query(o: { sql: string; rowsAsArray: boolean }): { on(e: 'fields', f: (x: Field[]) => void): void; stream(o: { highWaterMark: number }): AsyncIterable<unknown[]> };
    };
    const q = raw.query({ sql: `SELECT ${this.select} FROM ${this.db.dialect.table(this.table)}`, rowsAsArray: true });
    q.on('fields', (fs) => (this.fields = fs.map((f) => ({ name: f.name, type: fieldType(f) }))));
    return q.stream({ highWaterMark: 256 })[Symbol.asyncIterator]();
  }

  async poll(max: number): Promise<SourceBatch | null> {
    try {
      return await this.next(max);
    } catch (e) {
      // A stream cut off part-way cannot resume where it was: the copy fails (and starts over when run again).
      await this.close();
      throw notResumable(this.db, this.table, this.read, e);
    }
  }

  private async next(max: number): Promise<SourceBatch | null> {
    if (this.done) return null;
    this.iterator ??= await this.start();
    const batch: unknown[][] = [];
    while (batch.length < max) {
      const next = await this.iterator.next();
      if (next.done) {
        this.done = true;
        await this.close();
        break;
      }
      batch.push(next.value);
    }
    if (batch.length === 0) return null;
    const first = this.read;
    this.read += batch.length;
    return numberedBatch(this.rows, { rows: batch, fields: this.fields, affected: 0 }, `${this.db.dialect.kind}:${this.table}:row:`, first);
  }

  async estimate(): Promise<number | null> {
    return this.db.dialect.estimateRows(this.db, this.table);
  }

  async close(): Promise<void> {
    const tx = this.tx;
    this.tx = undefined;
    if (!tx) return;
    // A stream stopped part-way holds the connection mid-result: it is closed, not reused.
    if (!this.done) (tx.conn as MysqlConnection).conn.destroy();
    await (this.done ? tx.commit() : tx.rollback()).catch(() => {});
  }

  plan(): PlanItem[] {
    return [{ label: 'mode', value: 'snapshot, every row as a JSON object, read by one streaming SELECT in a consistent snapshot (no primary key: not resumable, a restart reads from the start)' }];
  }
}
