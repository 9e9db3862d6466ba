import type { Message } from '../../core/message.js';
import type { PlanItem } from '../../core/route.js';
import { DefaultWriter } from '../sql/write/write-default.js';
import type { MssqlConnection } from './driver.js';

/** Batches at least this large use the bulk-load protocol. */
const BULK_FROM = 200;

/**
 * The default insert on SQL Server with tedious' bulk load for large batches (the fast path that
 * stands in for bulk_copy, which stays PostgreSQL-only); small batches stay multi-row INSERTs.
 * If the server refuses bulk load for a reason other than the data, the writer says so once and
 * goes on with INSERTs.
 */
export class MssqlDefaultWriter extends DefaultWriter {
  private bulk = true;
  warn: (s: string) => void = () => {};

  override async write(messages: Message[]): Promise<void> {
    // A bulk load commits on its own: with a position to commit alongside, INSERTs in one transaction.
    if (!this.bulk || messages.length < BULK_FROM || this.db.positionPending()) return super.write(messages);
    const values = messages.map((m) => this.payloadValue(m));
    const binary = Buffer.isBuffer(values[0]);
    try {
      await this.db.withConnection(async (c) => {
        const conn = c as MssqlConnection;
        const { TYPES } = (await import('tedious')).default as unknown as typeof import('tedious');
        await new Promise<void>((resolve, reject) => {
          const bulk = conn.conn.newBulkLoad(this.db.dialect.table(this.tableName), { keepNulls: true }, (err) => (err ? reject(err) : resolve()));
          bulk.addColumn('payload', binary ? TYPES.VarBinary : TYPES.NVarChar, { nullable: false, length: Infinity });
          conn.conn.execBulkLoad(bulk, values.map((v) => [v]));
        });
      });
    } catch (e) {
      if ((e as { kind?: string }).kind === 'rejected') throw e;
      this.bulk = false;
      this.warn(`SQL Server bulk load failed (${(e as Error).message}); using INSERTs from now on`);
      return super.write(messages);
    }
  }

  override plan(): PlanItem[] {
    return [{ label: 'insert', value: `bulk load into ${this.tableName} (payload) for batches of ${BULK_FROM}+, multi-row INSERT below` }];
  }
}
