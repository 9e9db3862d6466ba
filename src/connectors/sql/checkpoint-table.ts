import type { CheckpointStore, Envelope } from '../../checkpoint/envelope.js';
import type { Database } from './database.js';

/** Positions in a table of a SQL database: (cursor_id PRIMARY KEY, last_value, updated_at). */
export class TableCheckpointStore implements CheckpointStore {
  readonly description: string;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    where: string,
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

  async load(cursorId: string): Promise<string | undefined> {
    const d = this.db.dialect;
    const r = await this.db.query(`SELECT last_value FROM ${d.table(this.table)} WHERE cursor_id = ${d.param(1)}`, [cursorId]);
    const v = r.rows[0]?.[0];
    return v === undefined || v === null ? undefined : String(v);
  }

  async save(cursorId: string, envelope: Envelope): Promise<void> {
    await this.db.query(this.db.dialect.upsertCheckpoint(this.table), [cursorId, JSON.stringify(envelope)]);
  }

  async close(): Promise<void> {}
}
