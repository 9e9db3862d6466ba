import { BridgeError } from '../../../core/errors.js';
import type { PlanItem, SourceBatch } from '../../../core/route.js';
import type { Database } from '../database.js';
import { deleteByKeys, type Statement } from './read-delete.js';
import type { Reader } from './reader.js';
import { rawText, type RowMessages } from './rows.js';
import type { ColumnInfo } from '../types.js';

export interface SelectOptions {
  db: Database;
  table: string;
  query: string;
  rows: RowMessages;
  /** With delete_after_read: the table's key, whose columns the query must return. */
  deleteKey: ColumnInfo[] | undefined;
  copy: boolean;
}

/**
 * Runs select_query (batch size bound to its placeholder) in a transaction that commits only after
 * the sink confirmed the batch, so a query that consumes rows (DELETE … RETURNING, FOR UPDATE SKIP
 * LOCKED + delete_after_read) loses nothing on a crash.
 */
export class SelectReader implements Reader {
  readonly finite = false;
  private previous: string | undefined;

  constructor(private readonly o: SelectOptions) {}

  async poll(max: number): Promise<SourceBatch | null> {
    const tx = await this.o.db.begin();
    let res;
    try {
      res = await tx.query(this.o.query, [max]);
    } catch (e) {
      await tx.rollback();
      if (e instanceof BridgeError && e.kind === 'fatal') e.message = `select_query failed: ${e.message}`;
      throw e;
    }
    if (res.rows.length === 0) {
      await tx.rollback();
      return null;
    }
    const prefix = `${this.o.db.dialect.kind}:${this.o.table}:select:`;
    const messages = this.o.rows.rowsAsJson(res, 0, (row) => prefix + row.map(rawText).join('\u0000'));
    // A query that neither consumes nor advances would make `copy` loop on the same rows.
    const signature = messages.map((m) => m.text()).join('\n');
    if (this.o.copy && !this.o.deleteKey && signature === this.previous) {
      await tx.rollback();
      throw new BridgeError(
        'config',
        'select_query returned the same rows twice: make it consume them (DELETE … RETURNING, or delete_after_read=true) or use cursor_column',
      );
    }
    this.previous = signature;
    let del: Statement[] | undefined;
    if (this.o.deleteKey) {
      const idx = this.o.deleteKey.map((k) => res.fields.findIndex((f) => f.name === k.name));
      if (idx.some((i) => i < 0)) {
        await tx.rollback();
        throw new BridgeError('config', `with delete_after_read, select_query must return the key column(s) ${this.o.deleteKey.map((k) => k.name).join(', ')}`);
      }
      del = deleteByKeys(this.o.db, this.o.table, this.o.deleteKey, res.rows.map((row) => idx.map((i) => rawText(row[i]))));
    }
    return {
      messages,
      ackRetryable: false,
      ack: async () => {
        if (del) {
          try {
            for (const st of del) await tx.query(st.sql, st.params);
          } catch (e) {
            await tx.rollback();
            throw e;
          }
        }
        await tx.commit();
      },
      release: () => tx.rollback(),
    };
  }

  plan(): PlanItem[] {
    return [
      { label: 'mode', value: `select_query in a transaction per batch, committed once the sink confirmed${this.o.deleteKey ? '; rows deleted by key' : ''}` },
      { label: 'query', value: this.o.query },
    ];
  }
}
