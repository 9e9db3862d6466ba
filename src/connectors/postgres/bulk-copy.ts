import { configError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { PlanItem } from '../../core/route.js';
import { tokenValue } from '../sql/convert.js';
import type { Database } from '../sql/database.js';
import { hasKeyword } from '../sql/sql-scan.js';
import { parseTemplate, type Binding, type TokenQuery } from '../sql/tokens.js';
import { TokenWriter } from '../sql/write-tokens.js';
import type { Writer } from '../sql/writer.js';
import { CopyTextEncoder } from './copy-encoder.js';
import { copyChunks } from './copy-text.js';
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

/** Streams each batch as `COPY … FROM STDIN` rows; a failed batch aborts its COPY, so nothing of it stays. */
export class BulkCopyWriter implements Writer {
  /** COPY only appends, so two batches can load at once (acks still go in order). */
  readonly concurrency = 2;
  private readonly copySql: string;
  private readonly probe: TokenWriter;

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
    await this.db.withConnection((conn) => copyChunks(conn as PgConnection, this.copySql, chunks));
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
