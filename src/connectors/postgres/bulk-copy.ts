import { configError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { PlanItem } from '../../core/route.js';
import { fieldToken, tokenValue } from '../sql/values/convert.js';
import type { Database } from '../sql/database.js';
import { hasKeyword } from '../sql/write/sql-scan.js';
import { parseTemplate, type Binding, type TokenQuery } from '../sql/write/tokens.js';
import { TokenWriter } from '../sql/write/write-tokens.js';
import type { RowIntake, Writer } from '../sql/write/writer.js';
import type { RowSet } from '../../core/row-set.js';
import type { DescribedTable } from '../../core/route.js';
import type { SourceColumn } from '../sql/values/bind.js';
import { SqlRowSet } from '../sql/row-set.js';
import { copyOutPool } from './copy-stream.js';
import { pickCopyFields } from './copy-out.js';
import { CopyTextEncoder } from './copy-encoder.js';
import { copyChunks, copyRows } from './copy-text.js';
import type { PgConnection } from './driver.js';

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
const TABLE = new RegExp(`^${IDENT}(?:\\.${IDENT})?$`);
const COLUMN = new RegExp(`^${IDENT}$`);
const ITEM = /^(\$\{(?:payload|metadata):[^}]+\}|\?)(::[A-Za-z_][A-Za-z0-9_ ]*(?:\(\s*\d+(?:\s*,\s*\d+)?\s*\))?(?:\[\])?)?$/;

/** Splits on commas that are not inside parentheses (casts like ::numeric(12,2)). */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

export interface CopyPlan {
  table: string;
  columns: string[];
  bindings: Binding[];
}

/**
 * Contract §4.1 bulk_copy: the token insert_query must be `INSERT INTO t (cols) VALUES (tokens)`,
 * each value a token with an optional cast, and no ON CONFLICT or RETURNING.
 */
export function parseCopyQuery(q: TokenQuery): CopyPlan {
  const sql = q.source;
  if (!q.hasTokens) throw configError('bulk_copy needs an insert_query with ${payload:…} or ${metadata:…} tokens (the columns to COPY)');
  if (hasKeyword(sql, 'ON CONFLICT')) throw configError('bulk_copy cannot be combined with ON CONFLICT in insert_query: COPY only appends');
  if (hasKeyword(sql, 'RETURNING')) throw configError('bulk_copy cannot be combined with RETURNING in insert_query');
  const m = /^\s*INSERT\s+INTO\s+(.+?)\s*\(([^)]*)\)\s*VALUES\s*\(([\s\S]*)\)\s*;?\s*$/i.exec(sql);
  if (!m) throw configError('with bulk_copy, insert_query must be INSERT INTO <table> (<columns>) VALUES (<tokens>)');
  const [, table, cols, items] = m as unknown as [string, string, string, string];
  if (!TABLE.test(table.trim())) throw configError(`bulk_copy: "${table.trim()}" is not a table name`);
  const columns = cols.split(',').map((c) => c.trim());
  for (const c of columns) if (!COLUMN.test(c)) throw configError(`bulk_copy: "${c}" is not a column name`);
  const values = splitTop(items);
  if (values.length !== columns.length) throw configError(`bulk_copy: insert_query names ${columns.length} columns but has ${values.length} values`);
  const bindings: Binding[] = [];
  for (const v of values) {
    if (!ITEM.test(v)) throw configError(`bulk_copy: each value must be a token with an optional ::cast, got "${v}" (expressions need the INSERT path)`);
    bindings.push(parseTemplate(v.replace(/::.*$/, ''), 'insert_query').bindings[0]!);
  }
  return { table: table.trim(), columns, bindings };
}

/** The source column each `${payload:…}` token names (its place in the table), and whether their COPY text is what the tokens bind. */
interface TokenColumns {
  names: string[];
  indexes: number[];
  passThrough: boolean;
}

/** Types whose value, as a token binds it, is the column's COPY text (a JSON string, number or boolean of it). */
const PLAIN = new Set(['text', 'uuid', 'date', 'time', 'timestamp', 'timestamptz', 'decimal', 'int', 'bigint', 'bool']);

function tokenColumns(bindings: Binding[], source: DescribedTable): TokenColumns | undefined {
  const names: string[] = [];
  const indexes: number[] = [];
  let passThrough = true;
  for (const b of bindings) {
    if (b.from !== 'field') return undefined;
    const i = source.columns.findIndex((c) => c.name === b.name);
    const c = source.columns[i];
    names.push(b.name);
    indexes.push(i);
    if (!c || c.kind !== 'postgres' || !PLAIN.has(c.type)) passThrough = false;
  }
  return { names, indexes, passThrough };
}

/** Streams each batch as `COPY … FROM STDIN` rows; a failed batch aborts its COPY, so nothing of it stays. */
export class BulkCopyWriter implements Writer {
  /** COPY only appends, so two batches can load at once (acks still go in order). */
  readonly concurrency = 2;
  private readonly copySql: string;
  private readonly probe: TokenWriter;
  /** The source columns the tokens name, when every token is a payload field (rowsFrom). */
  private rows: TokenColumns | undefined;

  constructor(
    private readonly db: Database,
    private readonly p: CopyPlan,
    q: TokenQuery,
  ) {
    this.copySql = `COPY ${p.table} (${p.columns.join(', ')}) FROM STDIN`;
    this.probe = new TokenWriter(db, q);
  }

  /** The batch as COPY text; throws a rejection naming a message that cannot be written. */
  encode(messages: Message[]): Buffer[] {
    const enc = new CopyTextEncoder();
    const b = this.p.bindings;
    const values = new Array<unknown>(b.length);
    for (const m of messages) {
      for (let i = 0; i < b.length; i++) values[i] = tokenValue(b[i]!, m, this.db.dialect);
      enc.row(values, m);
    }
    return enc.finish();
  }

  async write(messages: Message[]): Promise<void> {
    const chunks = this.encode(messages);
    await this.db.atomicLoad((conn, wrap) => copyChunks(conn as PgConnection, this.copySql, chunks, wrap));
  }

  /**
   * Rows of a PostgreSQL table go in as their own COPY data when every token names a column whose
   * text is what the token binds (text, numbers, booleans, dates and times: not JSON, bytes,
   * arrays or floats), in binary when the tokens take the source's columns in order into columns
   * of the same types. Other tables' rows have their tokens bound row by row, without messages.
   */
  async rowsFrom(source: DescribedTable | undefined): Promise<RowIntake> {
    this.rows = source && tokenColumns(this.p.bindings, source);
    if (!this.rows?.passThrough) return {};
    const identity = this.rows.indexes.every((x, i) => x === i) && this.rows.indexes.length === source!.columns.length;
    if (!identity) return { unchanged: true };
    const info = await this.db.dialect.introspect(this.db, this.p.table.replace(/"/g, ''));
    const same = this.p.columns.every((c, i) => {
      const target = info.columns.find((t) => t.name === c.replace(/^"|"$/g, ''));
      const src = (source!.columns[i]!.detail as SourceColumn | undefined)?.col;
      return target?.castType !== undefined && target.castType === src?.castType;
    });
    return { unchanged: true, ...(same ? { wireFormat: 'binary' } : {}) };
  }

  async writeRows(set: RowSet): Promise<boolean> {
    if (!(set instanceof SqlRowSet) || !this.rows) return false;
    const wire = set.wire;
    // The column each token names, in this result's order.
    const at = this.rows.names.map((name) => set.shape.index.get(name) ?? -1);
    const identity = at.length === set.shape.columns.length && at.every((x, i) => x === i);
    if (wire?.kind === 'postgres' && this.rows.passThrough && !set.shape.rfc3339 && (wire.format === 'text' || identity)) {
      const binary = wire.format === 'binary';
      const chunks = binary ? wire.chunks : pickCopyFields(wire.chunks, at, set.shape.columns.length);
      set.release();
      await this.db.atomicLoad((conn, wrap) => copyRows(conn as PgConnection, this.copySql, chunks, binary, wrap));
      copyOutPool.give(wire.chunks);
      return true;
    }
    await set.restore();
    const enc = new CopyTextEncoder();
    const values = new Array<unknown>(at.length);
    for (const row of set.arrays()) {
      for (let i = 0; i < at.length; i++) values[i] = at[i]! < 0 ? null : fieldToken(set.shape.field(row, at[i]!), this.db.dialect);
      enc.row(values);
    }
    const chunks = enc.finish();
    set.release();
    await this.db.atomicLoad((conn, wrap) => copyChunks(conn as PgConnection, this.copySql, chunks, wrap));
    return true;
  }

  async locate(messages: Message[]) {
    for (let i = 0; i < messages.length; i++) {
      try {
        this.encode([messages[i]!]);
      } catch (e) {
        return { index: i, error: e as never };
      }
    }
    return this.probe.locate(messages);
  }

  plan(): PlanItem[] {
    return [{ label: 'insert', value: `${this.copySql} (text format, one COPY per batch; a failed batch is rolled back whole)` }];
  }
}
