import { Message, type Metadata } from '../../../core/message.js';
import { rowRenderer, type RenderColumn } from '../values/render.js';
import { RowFields, RowShape } from '../values/row-fields.js';
import { estimateBytes, SqlRowSet, type WireRows } from '../row-set.js';
import type { KindDriver } from '../kind.js';
import type { ColumnInfo, SqlResult, TableInfo } from '../types.js';
import { rawText } from '../values/raw-text.js';

export { rawText, sameValue } from '../values/raw-text.js';

export interface RowFormat {
  driver: KindDriver;
  table: string;
  info: TableInfo;
  timestamps: 'text' | 'rfc3339';
  /** With source_metadata: the integer cursor column whose value goes to `bridge.src.cursor`. */
  metadataCursor: string | undefined;
}

/**
 * Turns result rows into messages: whole rows as JSON objects (decisions §4), or the payload column
 * of a queue table. Renderers are compiled once per column list.
 */
export class RowMessages {
  private readonly renderers = new Map<string, { render: (row: unknown[]) => string; shape: RowShape }>();
  private readonly types: Map<string, ColumnInfo>;

  constructor(private readonly f: RowFormat) {
    this.types = new Map(f.info.columns.map((c) => [c.name, c]));
  }

  private columns(fields: SqlResult['fields'], skip: number): RenderColumn[] {
    return fields.slice(skip).map((fl) => {
      // PostgreSQL reports exact types per result column; the others are typed by introspection.
      const known = this.types.get(fl.name);
      if (this.f.driver.dialect.exactResultTypes || !known) return { name: fl.name, type: fl.type, elem: fl.elem, variant: known?.type === fl.type ? known?.variant : undefined };
      return { name: fl.name, type: known.type, elem: known.elem, scale: known.scale, variant: known.variant, floatBits: known.floatBits };
    });
  }

  private renderer(fields: SqlResult['fields'], skip: number): { render: (row: unknown[]) => string; shape: RowShape } {
    const key = skip + ':' + fields.map((x) => `${x.name}/${x.type ?? ''}`).join(',');
    let r = this.renderers.get(key);
    if (!r) {
      const opts = { timestamps: this.f.timestamps, ...(this.f.driver.parseArray ? { parseArray: this.f.driver.parseArray } : {}) };
      const cols = this.columns(fields, skip);
      const render = rowRenderer(cols, opts, this.f.driver.loose);
      const d = this.f.driver.dialect;
      const sources = cols.map((c) => {
        const known = this.types.get(c.name);
        const col: ColumnInfo = known && known.type === c.type ? known : { name: c.name, type: c.type ?? 'text', dbType: c.type ?? '', nullable: true };
        return { col, type: c.type, loose: this.f.driver.loose, kind: d.kind, binder: d.binder };
      });
      r = { render, shape: new RowShape(cols, opts, this.f.driver.loose, render, sources) };
      this.renderers.set(key, r);
    }
    return r;
  }

  /**
   * Whole rows as JSON. `skip` leading columns are positions the reader selected for itself (ctid,
   * rowid); `seedOf` gives the deterministic id seed of a row.
   */
  rowsAsJson(res: SqlResult, skip: number, seedOf: (row: unknown[], i: number) => string): Message[] {
    const { shape } = this.renderer(res.fields, skip);
    const cursorIdx = this.f.metadataCursor === undefined ? -1 : res.fields.findIndex((x) => x.name === this.f.metadataCursor);
    const out = new Array<Message>(res.rows.length);
    for (let i = 0; i < res.rows.length; i++) {
      const row = res.rows[i]!;
      const values = skip ? row.slice(skip) : row;
      // The id seed is computed only if the id is ever read.
      out[i] = Message.lazy(new RowFields(shape, values), cursorIdx >= 0 ? this.metadata(row[cursorIdx]) : undefined, () => seedOf(row, i));
    }
    return out;
  }

  /**
   * Whole rows as a row set: sinks that write rows take the arrays, others get the messages
   * rowsAsJson would have made. `wire` is the batch in the kind's own format when read that way;
   * `reread` reads the batch's rows again (its key range) after a sink released them.
   */
  rowSet(res: SqlResult, skip: number, seedOf: (row: unknown[], i: number) => string, wire?: WireRows, reread?: () => Promise<unknown[][]>): SqlRowSet {
    const { shape } = this.renderer(res.fields, skip);
    const count = wire ? wire.count : res.rows.length;
    const bytes = wire ? wire.chunks.reduce((n, c) => n + c.length, 0) : estimateBytes(res.rows, skip);
    // Messages are made from the rows as read: a hidden position column (skip) gives their ids.
    const fields = res.fields;
    const build = (rows: unknown[][]): Message[] => this.rowsAsJson({ fields, rows, affected: 0 }, skip, seedOf);
    return new SqlRowSet(shape, count, bytes, wire ? undefined : res.rows, skip, build, wire, reread);
  }

  /** Queue rows: the message is the payload column as stored (bytes, JSON or text). */
  payloads(res: SqlResult, idIndex: number, payloadIndex: number): Message[] {
    const pType = this.types.get('payload')?.type ?? res.fields[payloadIndex]?.type;
    return res.rows.map((row) => {
      const raw = row[payloadIndex];
      let payload: string | Buffer;
      if (Buffer.isBuffer(raw)) payload = raw;
      else if (pType === 'bytes' && typeof raw === 'string' && raw.startsWith('\\x')) payload = Buffer.from(raw.slice(2), 'hex');
      else payload = raw === null || raw === undefined ? '' : String(raw);
      const m = new Message(payload, this.f.metadataCursor ? this.metadata(row[idIndex]) : undefined, `${this.f.driver.dialect.kind}:${this.f.table}:id:${String(row[idIndex])}`);
      m.isJson = pType === 'json';
      return m;
    });
  }

  private metadata(cursor: unknown): Metadata {
    return {
      'bridge.src.kind': this.f.driver.dialect.kind,
      'bridge.src.table': this.f.table,
      'bridge.src.cursor_column': this.f.metadataCursor!,
      'bridge.src.cursor': String(cursor),
    };
  }
}

/**
 * A cursor row's id seed: it names the row's version, key and cursor value (a row updated later is
 * another message, which a peer deduplicating by Idempotency-Key must not drop), the key alone when
 * it is the cursor; without a key, the cursor value and the row's place in the read.
 */
export function versionSeed(res: SqlResult, sourceName: string, key: string[], cursor: string): (row: unknown[], i: number) => string {
  const prefix = `${sourceName}:`;
  const pkIdx = key.map((k) => res.fields.findIndex((f) => f.name === k));
  const ci = res.fields.findIndex((f) => f.name === cursor);
  const version = pkIdx.includes(ci) ? undefined : ci;
  return (row, i) =>
    pkIdx.length && pkIdx.every((x) => x >= 0)
      ? prefix + pkIdx.map((x) => rawText(row[x])).join(',') + (version === undefined ? '' : `@${rawText(row[version])}`)
      : `${prefix}${rawText(row[ci])}#${i}`;
}
