import { configError, rejectedError } from '../../../core/errors.js';
import type { Message } from '../../../core/message.js';
import type { PlanItem } from '../../../core/route.js';
import type { Database } from '../database.js';
import type { KindDriver } from '../kind.js';
import type { ColumnInfo, TableInfo } from '../types.js';
import { cutToFit } from './statement-bytes.js';
import { chunkByParams, StatementWriter, type Statement, type Writer } from './writer.js';

/** Contract §4.1 default insert: the whole payload into `payload`, typed for that column. */
export class DefaultWriter extends StatementWriter {
  constructor(
    db: Database,
    protected readonly tableName: string,
    private readonly payload: ColumnInfo,
  ) {
    super(db);
  }

  /** The payload typed for the column: bytes as a Buffer, JSON/text as a string (JSON checked first). */
  protected payloadValue(m: Message): unknown {
    if (this.payload.type === 'bytes') return m.bytes();
    const text = m.text();
    // Text declared so ('123' from a text/plain body) is the JSON string of it, as an NDJSON file writes it, not the number.
    if (this.payload.type === 'json' && m.isText) return JSON.stringify(text);
    if (this.payload.type === 'json' && !m.isJson) {
      try {
        JSON.parse(text);
      } catch {
        throw rejectedError(`message ${m.idHex} is not JSON, but ${this.tableName}.payload is ${this.payload.dbType}`, undefined, m.idHex);
      }
    }
    return text;
  }

  statements(messages: Message[]): Statement[] {
    const d = this.db.dialect;
    const head = `INSERT INTO ${d.table(this.tableName)} (${d.quote('payload')}) VALUES `;
    const values = messages.map((m) => ({ m, v: [this.payloadValue(m)] }));
    const fit = this.statementBytes ? cutToFit(values, (x) => x.v, () => ['payload'], (x) => x.m, this.statementBytes) : [values];
    return fit.flatMap((run) =>
      chunkByParams(run, 1, d.maxParams).map((part) => {
        let tuples = '';
        for (let j = 0; j < part.length; j++) tuples += (j ? ',(' : '(') + d.param(j + 1) + ')';
        return { sql: head + tuples, params: part.map((x) => x.v[0]) };
      }),
    );
  }

  plan(): PlanItem[] {
    return [{ label: 'insert', value: `INSERT INTO ${this.tableName} (payload) VALUES (?) — the whole message as ${this.payload.dbType}, multi-row, one transaction per batch` }];
  }
}

/**
 * The default insert's writer for `table` (described as `info`; none in a dry run that would create
 * it, whose payload column will be bytes): the kind's own (PostgreSQL's COPY) or DefaultWriter.
 */
export async function defaultWriter(db: Database, driver: KindDriver, table: string, info: TableInfo | undefined, warn: (s: string) => void): Promise<Writer> {
  const payload = info ? info.columns.find((c) => c.name === 'payload') : { name: 'payload', type: 'bytes' as const, dbType: 'bytes', nullable: false };
  if (!payload) throw configError(`${table} has no payload column: the default insert writes each message into payload; use columns=auto or insert_query`);
  if (!['bytes', 'json', 'text'].includes(payload.type)) throw configError(`column ${table}.payload is ${payload.dbType}; the default insert needs bytes, JSON or text`);
  const own = await driver.defaultWriter?.(db, table, payload);
  if (own) own.warn = warn;
  return own ?? new DefaultWriter(db, table, payload);
}
