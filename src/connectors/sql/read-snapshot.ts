import type { PlanItem, SourceBatch } from '../../core/route.js';
import type { Database } from './database.js';
import type { Reader } from './reader.js';
import { rawText, type RowMessages } from './rows.js';
import type { ColumnInfo } from './types.js';

export interface SnapshotOptions {
  db: Database;
  /** Select list (conversions that keep values exact on some kinds). */
  select?: string;
  table: string;
  /** Key columns to page by; empty = the kind's hidden row position (ctid, rowid). */
  key: ColumnInfo[];
  rows: RowMessages;
  /** Queue tables: the message is this column, not the whole row. */
  payloadColumn?: string;
  batchSize?: number;
}

/** Reads a table once, paged by its primary key (keyset, never OFFSET). */
export class SnapshotReader implements Reader {
  readonly finite = true;
  private last: string[] | undefined;
  private readonly keyCols: ColumnInfo[];
  private readonly hidden: string | undefined;

  constructor(private readonly o: SnapshotOptions) {
    const pos = o.db.dialect.rowPosition;
    this.hidden = o.key.length === 0 ? pos : undefined;
    this.keyCols = o.key.length ? o.key : [{ name: pos!, type: pos === 'rowid' ? 'bigint' : 'text', dbType: pos!, nullable: false }];
  }

  async poll(max: number): Promise<SourceBatch | null> {
    const d = this.o.db.dialect;
    const t = d.table(this.o.table);
    const params: unknown[] = [];
    let where = '';
    let order: string;
    if (this.hidden) {
      order = this.hidden;
      if (this.last) {
        // rowid is an integer, inlined exactly (PostgreSQL tables without a key use CtidReader).
        where = ` WHERE rowid > ${d.cursorValue('bigint', this.last[0]!, params)}`;
      }
    } else {
      order = this.keyCols.map((c) => d.quote(c.name)).join(', ');
      if (this.last) where = ` WHERE ${d.keysetAfter(this.keyCols, this.last, params)}`;
    }
    const list = this.o.select ?? '*';
    const select = this.hidden ? `${this.hidden}, ${list}` : list;
    const res = await this.o.db.query(`SELECT ${select} FROM ${t}${where} ORDER BY ${order}${d.limit(max)}`, params);
    if (res.rows.length === 0) return null;
    const skip = this.hidden ? 1 : 0;
    const idx = this.hidden ? [0] : this.keyCols.map((c) => res.fields.findIndex((f) => f.name === c.name));
    const lastRow = res.rows[res.rows.length - 1]!;
    this.last = idx.map((i) => rawText(lastRow[i]));
    const prefix = `${d.kind}:${this.o.table}:`;
    let messages;
    if (this.o.payloadColumn) {
      const p = res.fields.findIndex((f, i) => i >= skip && f.name === this.o.payloadColumn);
      messages = this.o.rows.payloads(res, idx[0]!, p);
    } else messages = this.o.rows.rowsAsJson(res, skip, (row) => prefix + idx.map((i) => rawText(row[i])).join(','));
    return { messages, position: `${this.keyCols.map((c) => c.name).join(',')}=${this.last.join(',')}`, ack: async () => {} };
  }

  async estimate(): Promise<number | null> {
    return this.o.db.dialect.estimateRows({ query: (s, p) => this.o.db.query(s, p) }, this.o.table);
  }

  plan(): PlanItem[] {
    const by = this.hidden ? `${this.hidden} (no primary key)` : this.keyCols.map((c) => c.name).join(', ');
    const d = this.o.db.dialect;
    const order = this.hidden ?? this.keyCols.map((c) => d.quote(c.name)).join(', ');
    return [
      { label: 'mode', value: this.o.payloadColumn ? `queue table read once (payload column), paged by ${by}` : `snapshot, every row as a JSON object, paged by ${by}` },
      { label: 'query', value: `SELECT ${this.hidden ? `${this.hidden}, ` : ''}* FROM ${d.table(this.o.table)} WHERE (${order}) > (<last key>) ORDER BY ${order}${d.limit(this.o.batchSize ?? 1024)}` },
    ];
  }
}
