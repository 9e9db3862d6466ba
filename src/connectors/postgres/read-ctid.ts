import type { PlanItem, SourceBatch } from '../../core/route.js';
import type { Database } from '../sql/database.js';
import type { Reader } from '../sql/read/reader.js';
import type { RowMessages } from '../sql/read/rows.js';

/**
 * Snapshot of a PostgreSQL table without a primary key, read by ranges of heap blocks
 * (`ctid >= '(b,0)' AND ctid < '(b+k,0)'`, a TID range scan). Paging with `ctid > $1 ORDER BY
 * ctid LIMIT n` would sort the rest of the table on every page.
 */
export class CtidReader implements Reader {
  readonly finite = true;
  private block = 0;
  private blocks: number | undefined;
  private rowsPerBlock = 50;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly rows: RowMessages,
  ) {}

  async poll(max: number): Promise<SourceBatch | null> {
    const t = this.db.dialect.table(this.table);
    if (this.blocks === undefined) {
      const r = await this.db.query(`SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::bigint)::text`, [t]);
      this.blocks = Number(r.rows[0]![0]);
    }
    while (this.block < this.blocks) {
      const span = Math.max(1, Math.floor(max / Math.max(1, this.rowsPerBlock)));
      const from = this.block;
      const to = Math.min(from + span, this.blocks);
      const res = await this.db.query(`SELECT ctid, * FROM ${t} WHERE ctid >= '(${from},0)'::tid AND ctid < '(${to},0)'::tid ORDER BY ctid`);
      this.block = to;
      if (res.rows.length > 0) this.rowsPerBlock = Math.max(1, Math.round(res.rows.length / (to - from)));
      if (res.rows.length === 0) continue;
      const prefix = `postgres:${this.table}:ctid:`;
      const messages = this.rows.rowsAsJson(res, 1, (row) => prefix + String(row[0]));
      return { messages, position: `block ${to} of ${this.blocks}`, ack: async () => {} };
    }
    return null;
  }

  async estimate(): Promise<number | null> {
    const r = await this.db.query(`SELECT COUNT(*) FROM ${this.db.dialect.table(this.table)}`);
    return Number(r.rows[0]?.[0] ?? 0);
  }

  plan(): PlanItem[] {
    return [{ label: 'mode', value: 'snapshot, every row as a JSON object, read by ranges of heap blocks (no primary key)' }];
  }
}
