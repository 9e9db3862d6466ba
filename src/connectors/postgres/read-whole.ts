import type { PlanItem, SourceBatch } from '../../core/route.js';
import type { Database } from '../sql/database.js';
import type { WireStream } from '../sql/kind.js';
import type { Reader } from '../sql/read/reader.js';
import type { RowMessages } from '../sql/read/rows.js';
import type { SqlResult } from '../sql/types.js';
import { notResumable, numberedBatch } from '../sql/read/numbered-batch.js';

/** Relation kinds whose rows lie in heap blocks a ctid range can read (table, materialized view). */
export const HEAP_KINDS = new Set(['r', 'm']);

/**
 * A relation without heap blocks of its own and without a key: a view, a foreign table, a
 * partitioned table's parent (its rows are in its partitions). Ranges of its blocks would read
 * nothing (there are none: a view copied as "done: 0 rows"), so it is read by one COPY (SELECT …)
 * TO STDOUT, taken a batch at a time (the server waits on the socket meanwhile). Not resumable: a
 * copy stopped part-way reads it from its start again.
 */
export class WholeReader implements Reader {
  readonly finite = true;
  private stream: WireStream | undefined;
  private fields: SqlResult['fields'] = [];
  private read = 0;
  private done = false;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly rows: RowMessages,
    private readonly relkind: string,
  ) {}

  get rowBatches(): { wire: true; size: number } {
    return { wire: true, size: 16384 };
  }

  /**
   * Text only: a batch a sink refuses is written again as messages, made from its rows, and text
   * rows parse back where binary ones cannot (ranges of a table are read again instead; this
   * statement cannot be).
   */
  useWireFormat(_format: string): boolean {
    return false;
  }

  async poll(max: number): Promise<SourceBatch | null> {
    if (this.done) return null;
    let wire;
    try {
      if (!this.stream) {
        const t = this.db.dialect.table(this.table);
        this.fields = (await this.db.query(`SELECT * FROM ${t} LIMIT 0`)).fields;
        this.stream = this.db.driver.streamWire!(this.db, `SELECT * FROM ${t}`, [], this.fields.map((f) => ({ name: f.name, dbType: f.type ?? '' })), 'text');
      }
      wire = await this.stream.next(max);
    } catch (e) {
      await this.close();
      throw notResumable(this.db, this.table, this.read, e);
    }
    if (!wire || wire.count === 0) {
      this.done = true;
      await this.close();
      return null;
    }
    const first = this.read;
    this.read += wire.count;
    return numberedBatch(this.rows, { fields: this.fields, rows: [], affected: 0 }, `postgres:${this.table}:row:`, first, wire);
  }

  async estimate(): Promise<number | null> {
    return this.db.dialect.estimateRows(this.db, this.table);
  }

  async close(): Promise<void> {
    const s = this.stream;
    this.stream = undefined;
    await s?.close().catch(() => {});
  }

  plan(): PlanItem[] {
    const what = { v: 'a view', f: 'a foreign table', p: 'a partitioned table' }[this.relkind] ?? `a relation of kind ${this.relkind}`;
    return [{ label: 'mode', value: `snapshot of ${what} (no primary key, no heap blocks of its own), read by one COPY (SELECT …) TO STDOUT: not resumable, a restart reads from the start` }];
  }
}
