import type { PlanItem, SourceBatch } from '../../../core/route.js';
import type { Database } from '../database.js';
import type { Reader } from './reader.js';
import type { RowMessages } from './rows.js';

/** How long a leased queue row stays invisible to other readers if this process dies. */
export const LEASE_SECONDS = 60;

/**
 * Work-queue reading of a table in the queue shape: a batch is leased by setting locked_until
 * (SKIP LOCKED where the database has it), and its rows are deleted once the sink confirmed them.
 * Two processes draining one queue never get the same row; rows of a process that died come back
 * when their lease runs out.
 */
export class LeaseReader implements Reader {
  readonly finite = false;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly rows: RowMessages,
  ) {}

  private claimable(): string {
    const d = this.db.dialect;
    return `SELECT id FROM ${d.table(this.table)} WHERE locked_until IS NULL OR locked_until < ${d.now} ORDER BY id`;
  }

  async poll(max: number): Promise<SourceBatch | null> {
    const d = this.db.dialect;
    const t = d.table(this.table);
    const lease = d.leaseUntil(LEASE_SECONDS);
    let res;
    if (d.updateReturning) {
      res = await this.db.query(`UPDATE ${t} SET locked_until = ${lease} WHERE id IN (${this.claimable()}${d.limit(max)}${d.skipLocked}) RETURNING id, payload`);
    } else {
      res = await this.db.transaction(async (c) => {
        const r = await c.query(`SELECT id, payload FROM ${t}${d.lockHint} WHERE locked_until IS NULL OR locked_until < ${d.now} ORDER BY id${d.limit(max)}${d.skipLocked}`);
        if (r.rows.length) await c.query(`UPDATE ${t} SET locked_until = ${lease} WHERE id IN (${r.rows.map((x) => String(x[0])).join(',')})`);
        return r;
      });
    }
    if (res.rows.length === 0) return null;
    // RETURNING gives no order guarantee; queues are delivered in id order.
    res.rows.sort((a, b) => {
      const x = BigInt(String(a[0]));
      const y = BigInt(String(b[0]));
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const ids = res.rows.map((r) => String(r[0]));
    if (!ids.every((id) => /^-?\d+$/.test(id))) throw new Error('queue id column must be an integer');
    const list = ids.join(',');
    return {
      messages: this.rows.payloads(res, 0, 1),
      position: `id=${ids[ids.length - 1]}`,
      ack: async () => {
        await this.db.query(`DELETE FROM ${t} WHERE id IN (${list})`);
      },
      release: async () => {
        await this.db.query(`UPDATE ${t} SET locked_until = NULL WHERE id IN (${list})`);
      },
    };
  }

  async estimate(): Promise<number | null> {
    const d = this.db.dialect;
    const r = await this.db.query(`SELECT COUNT(*) FROM ${d.table(this.table)} WHERE locked_until IS NULL OR locked_until < ${d.now}`);
    return Number(r.rows[0]?.[0] ?? 0);
  }

  plan(): PlanItem[] {
    const d = this.db.dialect;
    return [
      { label: 'mode', value: `work queue: lease ${LEASE_SECONDS} s per batch (locked_until), delete once the sink confirmed` },
      { label: 'query', value: `UPDATE ${d.table(this.table)} SET locked_until = ${d.leaseUntil(LEASE_SECONDS)} WHERE id IN (${this.claimable()}${d.limit(1024)}${d.skipLocked}); then DELETE … WHERE id IN (…) after the sink confirmed` },
    ];
  }
}
