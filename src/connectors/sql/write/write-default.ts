import { rejectedError } from '../../../core/errors.js';
import type { Message } from '../../../core/message.js';
import type { PlanItem } from '../../../core/route.js';
import type { Database } from '../database.js';
import type { ColumnInfo } from '../types.js';
import { chunkByParams, StatementWriter, type Statement } from './writer.js';

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
    return chunkByParams(messages, 1, d.maxParams).map((part) => {
      let tuples = '';
      for (let j = 0; j < part.length; j++) tuples += (j ? ',(' : '(') + d.param(j + 1) + ')';
      return { sql: head + tuples, params: part.map((m) => this.payloadValue(m)) };
    });
  }

  plan(): PlanItem[] {
    return [{ label: 'insert', value: `INSERT INTO ${this.tableName} (payload) VALUES (?) — the whole message as ${this.payload.dbType}, multi-row, one transaction per batch` }];
  }
}
