import type { PlanItem, SourceBatch } from '../../../core/route.js';
import type { Database } from '../database.js';
import type { Reader } from './reader.js';
import { rawText, type RowMessages } from './rows.js';
import type { SqlRowSet, WireRows } from '../row-set.js';
import type { RowStream, WireStream } from '../kind.js';
import type { ColumnInfo, SqlResult } from '../types.js';

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

/**
 * Rows per wire stream: one query per 262,144 rows of a key range. A longer one would read the
 * whole table in one statement (its snapshot held for the copy, and an ORDER BY the planner might
 * sort instead of following the index); LIMIT keeps the index walk.
 */
const STREAM_ROWS = 262_144;
/**
 * A range not read on for this long lets go of its query, and with it what the server holds for it
 * (PostgreSQL's snapshot, which holds back vacuum; InnoDB's read view, which holds back purge): a
 * sink that stalls does not stall the source's upkeep. The next poll starts a new range after the
 * last row read.
 */
const RANGE_IDLE_MS = 30_000;

/** Reads a table once, paged by its primary key (keyset, never OFFSET). */
export class SnapshotReader implements Reader {
  readonly finite = true;
  private last: string[] | undefined;
  private readonly keyCols: ColumnInfo[];
  private readonly hidden: string | undefined;
  /** The result columns, learned once, when ranges are read in the kind's wire format. */
  private wireFields: SqlResult['fields'] | undefined;

  private ramp = 2048;
  /** The stream of the key range being read (wire format or streamed query), and the rows it gave so far. */
  private stream: WireStream | RowStream | undefined;
  private streamed = 0;
  private idle: NodeJS.Timeout | undefined;
  /** The wire format ranges are read in (useWireFormat). */
  private wireFormat: 'text' | 'binary' = 'text';

  constructor(private readonly o: SnapshotOptions) {
    const pos = o.db.dialect.rowPosition;
    this.hidden = o.key.length === 0 ? pos : undefined;
    this.keyCols = o.key.length ? o.key : [{ name: pos!, type: pos === 'rowid' ? 'bigint' : 'text', dbType: pos!, nullable: false }];
  }

  /**
   * Rows per batch when a sink takes rows: ranges in the wire format are cheap to hold (bytes, not
   * values), so they are large and each costs one transaction per 16k rows; rows as driver values
   * take the route's size for values (see batching in cli/route.ts).
   */
  get rowBatches(): { wire: true; size: number } | { wire: false } | undefined {
    // A queue table's batches are messages (its payload column), not rows.
    if (this.o.payloadColumn !== undefined) return undefined;
    return this.readsWire ? { wire: true, size: 16384 } : { wire: false };
  }

  /**
   * The sink takes ranges unchanged in `format` (PostgreSQL binary COPY): they are read so when the
   * kind can decode this table's key from it (the next range starts after the last key).
   */
  useWireFormat(format: string): boolean {
    if (format !== 'binary' || !this.readsWire || !this.o.db.driver.binaryWire?.(this.keyCols)) return false;
    this.wireFormat = 'binary';
    return true;
  }

  private get readsWire(): boolean {
    return this.o.db.driver.streamWire !== undefined && !this.hidden && this.o.payloadColumn === undefined;
  }

  /**
   * A range by one streamed query, while the pool has a connection to spare besides: the stream holds
   * one for the range, and a batch read again (reread), other tables' ranges and a sink on the same
   * pool need others. Otherwise the range is paged.
   */
  private get streamsRows(): boolean {
    if (this.o.db.driver.streamRows === undefined || this.hidden || this.o.payloadColumn !== undefined) return false;
    const pool = this.o.db.stats();
    return pool.max - pool.inUse >= 2;
  }

  private get selectList(): string {
    const list = this.o.select ?? '*';
    return this.hidden ? `${this.hidden}, ${list}` : list;
  }

  private get order(): string {
    return this.hidden ?? this.keyCols.map((c) => this.o.db.dialect.quote(c.name)).join(', ');
  }

  /** The condition for keys after `after` (and, with `upTo`, at most `upTo`). */
  private range(after: string[] | undefined, upTo: string[] | undefined, params: unknown[]): string {
    const d = this.o.db.dialect;
    const conds: string[] = [];
    if (this.hidden) {
      // rowid is an integer, inlined exactly (PostgreSQL tables without a key use CtidReader).
      if (after) conds.push(`rowid > ${d.cursorValue('bigint', after[0]!, params)}`);
      if (upTo) conds.push(`rowid <= ${d.cursorValue('bigint', upTo[0]!, params)}`);
    } else {
      if (after) conds.push(d.keysetAfter(this.keyCols, after, params));
      if (upTo) conds.push(d.keysetAtMost(this.keyCols, upTo, params));
    }
    return conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
  }

  async poll(max: number): Promise<SourceBatch | null> {
    clearTimeout(this.idle);
    const d = this.o.db.dialect;
    if (this.readsWire || this.stream || this.streamsRows) return this.pollRange(max);
    const params: unknown[] = [];
    const where = this.range(this.last, undefined, params);
    const sql = `SELECT ${this.selectList} FROM ${d.table(this.o.table)}${where} ORDER BY ${this.order}${d.limit(max)}`;
    const res = await this.o.db.query(sql, params);
    if (res.rows.length === 0) return null;
    const skip = this.hidden ? 1 : 0;
    const idx = this.hidden ? [0] : this.keyCols.map((c) => res.fields.findIndex((f) => f.name === c.name));
    const lastRow = res.rows[res.rows.length - 1]!;
    const after = this.last;
    this.last = idx.map((i) => rawText(lastRow[i]));
    if (this.o.payloadColumn) {
      const p = res.fields.findIndex((f, i) => i >= skip && f.name === this.o.payloadColumn);
      return { messages: this.o.rows.payloads(res, idx[0]!, p), position: this.position(), ack: async () => {} };
    }
    return this.batchOf(this.o.rows.rowSet(res, skip, this.seeds(idx), undefined, this.rereadOf(after, this.last)));
  }

  /**
   * Closures a batch keeps are made here, away from poll()'s scope: a closure made there would
   * share its context, and with it the whole result (every row kept until the batch is acked).
   */
  private seeds(idx: number[]): (row: unknown[]) => string {
    const prefix = `${this.o.db.dialect.kind}:${this.o.table}:`;
    return (row) => prefix + idx.map((i) => rawText(row[i])).join(',');
  }

  /** Reads the rows of a batch again: keys after `after` up to `upTo`. */
  private rereadOf(after: string[] | undefined, upTo: string[]): () => Promise<unknown[][]> {
    return async () => {
      const p: unknown[] = [];
      const sql = `SELECT ${this.selectList} FROM ${this.o.db.dialect.table(this.o.table)}${this.range(after, upTo, p)} ORDER BY ${this.order}`;
      return (await this.o.db.query(sql, p)).rows;
    };
  }

  /** Whole rows travel as a row set; messages are built only for a sink that reads them. */
  private batchOf(rows: SqlRowSet): SourceBatch {
    return {
      get messages() {
        return rows.messages();
      },
      rows,
      position: this.position(),
      ack: async () => {},
    };
  }

  private position(): string {
    return `${this.keyCols.map((c) => c.name).join(',')}=${this.last!.join(',')}`;
  }

  /**
   * Rows read a long key range at a time, as one stream the server sends without a round trip per
   * batch, cut into batches: in the kind's wire format (PostgreSQL COPY TO; a same-kind sink takes
   * the bytes, others parse them into the values a query returns), or by one streamed query
   * (MySQL/MariaDB). The last row of each batch is where a new stream starts after a failure (the
   * engine retries the poll) or at the range's end.
   */
  private async pollRange(max: number): Promise<SourceBatch | null> {
    const d = this.o.db.dialect;
    if (this.readsWire) this.wireFields ??= (await this.o.db.query(`SELECT ${this.o.select ?? '*'} FROM ${d.table(this.o.table)}${d.limit(0)}`)).fields;
    const wireFields = this.wireFields;
    if (!this.stream) {
      const params: unknown[] = [];
      const sql = `SELECT ${this.selectList} FROM ${d.table(this.o.table)}${this.range(this.last, undefined, params)} ORDER BY ${this.order}${d.limit(STREAM_ROWS)}`;
      const columns = wireFields?.map((f) => ({ name: f.name, dbType: f.type ?? '' }));
      this.stream = columns ? this.o.db.driver.streamWire!(this.o.db, sql, params, columns, this.wireFormat) : this.o.db.driver.streamRows!(this.o.db, sql, params);
      this.streamed = 0;
    }
    let got: WireRows | SqlResult | null;
    try {
      // Batches start small and double: the sink's first COPY starts after 2,048 rows, not 16,384.
      got = await this.stream.next(Math.min(max, this.ramp));
    } catch (e) {
      await this.closeStream();
      throw this.o.db.driver.classify(e);
    }
    if (!got) {
      await this.closeStream();
      // A range that ended short is the end of the table; the next one is read as poll() decides.
      if (this.streamed < STREAM_ROWS) return null;
      return this.poll(max);
    }
    this.ramp *= 2;
    const wire = 'rows' in got ? undefined : got;
    const res = wire ? { fields: wireFields!, rows: [], affected: 0 } : (got as SqlResult);
    this.streamed += wire ? wire.count : res.rows.length;
    const idx = this.keyCols.map((c) => res.fields.findIndex((f) => f.name === c.name));
    const lastRow = wire ? wire.last()! : res.rows[res.rows.length - 1]!;
    const after = this.last;
    this.last = idx.map((i) => rawText(lastRow[i]));
    // A sink lets go of wire bytes once sent; a batch it must write again is read again (binary rows are never parsed here).
    this.letGoWhenIdle();
    return this.batchOf(this.o.rows.rowSet(res, 0, this.seeds(idx), wire, this.rereadOf(after, this.last)));
  }

  /** Made here, away from pollRange()'s scope, whose context holds the batch (see seeds). */
  private letGoWhenIdle(): void {
    this.idle = setTimeout(() => void this.closeStream(), RANGE_IDLE_MS).unref();
  }

  private async closeStream(): Promise<void> {
    const s = this.stream;
    this.stream = undefined;
    await s?.close().catch(() => {});
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    await this.closeStream();
  }

  async estimate(): Promise<number | null> {
    return this.o.db.dialect.estimateRows({ query: (s, p) => this.o.db.query(s, p) }, this.o.table);
  }

  plan(): PlanItem[] {
    const by = `${this.hidden ? `${this.hidden} (no primary key)` : this.keyCols.map((c) => c.name).join(', ')}${this.wireFormat === 'binary' ? ', ranges read as binary COPY' : ''}`;
    const d = this.o.db.dialect;
    const order = this.hidden ?? this.keyCols.map((c) => d.quote(c.name)).join(', ');
    return [
      { label: 'mode', value: this.o.payloadColumn ? `queue table read once (payload column), paged by ${by}` : `snapshot, every row as a JSON object, paged by ${by}` },
      { label: 'query', value: `SELECT ${this.hidden ? `${this.hidden}, ` : ''}* FROM ${d.table(this.o.table)} WHERE (${order}) > (<last key>) ORDER BY ${order}${this.streamsRows ? `${d.limit(STREAM_ROWS)}, each range one streamed query` : d.limit(this.o.batchSize ?? 1024)}` },
    ];
  }
}
