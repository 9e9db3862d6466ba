import type { CheckpointStore } from '../../../checkpoint/envelope.js';
import { BridgeError } from '../../../core/errors.js';
import type { Database } from '../database.js';

/** Positions in a table of a SQL database: (cursor_id PRIMARY KEY, last_value, updated_at). */
export class TableCheckpointStore implements CheckpointStore {
  readonly description: string;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    where: string,
    private readonly release?: () => Promise<void>,
  ) {
    this.description = `table ${table} in ${where}`;
  }

  async open(): Promise<void> {
    const d = this.db.dialect;
    const lock = d.ddlLock(this.table);
    await this.db.transaction(async (c) => {
      if (lock) await c.query(lock);
      for (const sql of d.createCheckpointTable(this.table)) await c.query(sql);
    });
  }

  async load(key: string): Promise<string | undefined> {
    const d = this.db.dialect;
    const r = await this.db.query(`SELECT last_value FROM ${d.table(this.table)} WHERE cursor_id = ${d.param(1)}`, [key]);
    const v = r.rows[0]?.[0];
    return v === undefined || v === null ? undefined : String(v);
  }

  async put(key: string, text: string): Promise<void> {
    await this.db.query(this.db.dialect.upsertCheckpoint(this.table), [key, text]);
  }

  async swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    const d = this.db.dialect;
    const t = d.table(this.table);
    // The row (or the gap where it would be) stays locked until the swap commits.
    const hint = d.rowLockHint;
    const lock = d.rowLockSuffix;
    try {
      return await this.db.transaction(async (c) => {
        const r = await c.query(`SELECT last_value FROM ${t}${hint} WHERE cursor_id = ${d.param(1)}${lock}`, [key]);
        const current = r.rows.length ? String(r.rows[0]![0]) : undefined;
        if (current !== expected) return false;
        if (next === undefined) await c.query(`DELETE FROM ${t} WHERE cursor_id = ${d.param(1)}`, [key]);
        else if (current === undefined) await c.query(`INSERT INTO ${t} (cursor_id, last_value) VALUES (${d.param(1)}, ${d.param(2)})`, [key, next]);
        else await c.query(`UPDATE ${t} SET last_value = ${d.param(1)}, updated_at = ${d.now} WHERE cursor_id = ${d.param(2)}`, [next, key]);
        return true;
      });
    } catch (e) {
      // Two processes inserting the first lease row at once: the loser sees a key violation.
      if (e instanceof BridgeError && e.kind === 'rejected') return false;
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.release?.();
  }
}
