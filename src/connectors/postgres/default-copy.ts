import type { Message } from '../../core/message.js';
import type { PlanItem } from '../../core/route.js';
import { DefaultWriter } from '../sql/write/write-default.js';
import { CopyTextEncoder } from './copy-encoder.js';
import { copyChunks } from './copy-text.js';
import type { PgConnection } from './driver.js';

/** Batches at least this large load through COPY. */
export const COPY_FROM = 200;

/**
 * The default insert on PostgreSQL through `COPY t (payload) FROM STDIN`: the same rows as the
 * multi-row INSERT, at a fraction of the server's parse and plan cost. One batch at a time, so a
 * queue table's ids keep the order of the messages.
 */
export class PgDefaultWriter extends DefaultWriter {
  override async write(messages: Message[]): Promise<void> {
    // COPY costs an extra round trip: small batches (a busy listener's) go faster as one INSERT.
    if (messages.length < COPY_FROM) return super.write(messages);
    const enc = new CopyTextEncoder();
    const row = [undefined as unknown];
    for (const m of messages) {
      row[0] = this.payloadValue(m);
      enc.row(row, m);
    }
    const chunks = enc.finish();
    const d = this.db.dialect;
    await this.db.atomicLoad((c, wrap) => copyChunks(c as PgConnection, `COPY ${d.table(this.tableName)} (${d.quote('payload')}) FROM STDIN`, chunks, wrap));
  }

  override plan(): PlanItem[] {
    return [{ label: 'insert', value: `COPY ${this.tableName} (payload) FROM STDIN — the whole message per row, one COPY per batch` }];
  }
}
