import { envelopeValue, makeEnvelope, readEnvelope, type CheckpointStore } from '../../checkpoint/envelope.js';
import { Lease } from '../../checkpoint/lease.js';
import type { PlanItem, SourceBatch } from '../../core/route.js';
import type { Database } from './database.js';
import type { Reader } from './reader.js';
import { rawText, sameValue, type RowMessages } from './rows.js';
import type { ColumnInfo } from './types.js';

export interface CursorOptions {
  db: Database;
  /** Select list (conversions that keep values exact on some kinds). */
  select?: string;
  table: string;
  column: ColumnInfo;
  primaryKey: string[];
  rows: RowMessages;
  store: CheckpointStore | undefined;
  cursorId: string | undefined;
}

/**
 * Keyset paging on the cursor column. A page never ends inside a run of equal cursor values: a
 * full page gives back its trailing run (read again next time), and a page that is one run only
 * is completed with every row of that value. So the stored position is one value and no row is
 * lost or doubled at a boundary.
 */
export class CursorReader implements Reader {
  readonly finite = false;
  private last: string | undefined;
  private saved: string | undefined;
  private lease: Lease | undefined;
  private stored: string | undefined;
  private readonly sourceName: string;
  private readonly isInt: boolean;

  constructor(private readonly o: CursorOptions) {
    this.sourceName = `${o.db.dialect.kind}:${o.table}:${o.column.name}`;
    this.isInt = o.column.type === 'int' || o.column.type === 'bigint';
  }

  /** Takes the cursor_id's lease, then loads the stored position (refusing one written for another source). */
  async start(lease: boolean): Promise<void> {
    if (!this.o.store || !this.o.cursorId) return;
    if (lease) {
      this.lease = new Lease(this.o.store, this.o.cursorId);
      await this.lease.acquire();
    }
    const text = await this.o.store.load(this.o.cursorId);
    this.stored = text;
    if (text === undefined) return;
    const env = readEnvelope(text, this.sourceName, `${this.o.store.description} (cursor_id ${this.o.cursorId})`);
    this.last = envelopeValue(env);
    this.saved = this.last;
  }

  checkpoint(): string | undefined {
    if (!this.o.store || !this.o.cursorId) return undefined;
    return `${this.o.cursorId} in ${this.o.store.description} at ${this.saved === undefined ? '(start)' : `${this.o.column.name}=${this.saved}`}`;
  }

  get position(): string | undefined {
    return this.last;
  }

  private where(params: unknown[]): string {
    const d = this.o.db.dialect;
    const c = d.quote(this.o.column.name);
    if (this.last === undefined) return `${c} IS NOT NULL`;
    return `${c} > ${d.cursorValue(this.o.column.type, this.last, params)}`;
  }

  async close(): Promise<void> {
    await this.lease?.release();
  }

  async poll(max: number): Promise<SourceBatch | null> {
    this.lease?.check();
    const d = this.o.db.dialect;
    const t = d.table(this.o.table);
    const c = d.quote(this.o.column.name);
    const params: unknown[] = [];
    const sel = this.o.select ?? '*';
    const res = await this.o.db.query(`SELECT ${sel} FROM ${t} WHERE ${this.where(params)} ORDER BY ${c}${d.limit(max)}`, params);
    if (res.rows.length === 0) return null;
    const ci = res.fields.findIndex((f) => f.name === this.o.column.name);
    const type = this.o.column.type;
    let rows = res.rows;
    if (rows.length >= max) {
      const lastVal = rawText(rows[rows.length - 1]![ci]);
      let cut = rows.length;
      while (cut > 0 && sameValue(rawText(rows[cut - 1]![ci]), lastVal, type)) cut--;
      if (cut > 0) rows = rows.slice(0, cut);
      else {
        // The whole page is one value: take the entire run so the position can move past it.
        const p: unknown[] = [];
        const eq = `${c} = ${d.cursorValue(type, lastVal, p)}`;
        const order = this.o.primaryKey.length ? ` ORDER BY ${this.o.primaryKey.map((k) => d.quote(k)).join(', ')}` : '';
        rows = (await this.o.db.query(`SELECT ${sel} FROM ${t} WHERE ${eq}${order}`, p)).rows;
      }
    }
    const pos = rawText(rows[rows.length - 1]![ci]);
    this.last = pos;
    const pkIdx = this.o.primaryKey.map((k) => res.fields.findIndex((f) => f.name === k));
    const prefix = `${this.sourceName}:`;
    const messages = this.o.rows.rowsAsJson({ ...res, rows }, 0, (row, i) =>
      pkIdx.length && pkIdx.every((x) => x >= 0) ? prefix + pkIdx.map((x) => rawText(row[x])).join(',') : `${prefix}${rawText(row[ci])}#${i}`,
    );
    const store = this.o.store;
    const cursorId = this.o.cursorId;
    return {
      messages,
      position: `${this.o.column.name}=${pos}`,
      ack: async () => {
        if (!store || !cursorId) return;
        this.lease?.check();
        await store.put(cursorId, JSON.stringify(makeEnvelope(this.sourceName, pos, this.isInt)));
        this.saved = pos;
      },
    };
  }

  async estimate(): Promise<number | null> {
    if (this.last === undefined) return this.o.db.dialect.estimateRows({ query: (s, p) => this.o.db.query(s, p) }, this.o.table);
    const params: unknown[] = [];
    const r = await this.o.db.query(`SELECT COUNT(*) FROM ${this.o.db.dialect.table(this.o.table)} WHERE ${this.where(params)}`, params);
    return Number(r.rows[0]?.[0] ?? 0);
  }

  plan(): PlanItem[] {
    const items: PlanItem[] = [
      { label: 'mode', value: `cursor paging on ${this.o.column.name} (${this.o.column.dbType})` },
      { label: 'position', value: this.last === undefined ? 'start of table' : `${this.o.column.name} > ${this.last}` },
    ];
    const d = this.o.db.dialect;
    items.push({ label: 'query', value: `SELECT * FROM ${d.table(this.o.table)} WHERE ${d.quote(this.o.column.name)} > <position> ORDER BY ${d.quote(this.o.column.name)}${d.limit(1024)} (a trailing run of equal values is read again; a page of one value is completed)` });
    if (this.o.store) {
      items.push({ label: 'checkpoint', value: `${this.o.cursorId} in ${this.o.store.description}` });
      items.push({ label: 'checkpoint holds', value: this.stored ?? 'nothing yet (first run)' });
    }
    else items.push({ label: 'checkpoint', value: 'none (no cursor_id): a restart reads from the start' });
    return items;
  }
}
