import type { Database } from '../sql/database.js';
import { baseTables, CHECKPOINT_TABLE, resolveCapturedTables } from './binlog-checks.js';
import { CapturedTable } from './binlog-rows.js';
import type { MysqlDialect } from './dialect.js';

/**
 * The tables a binlog capture follows, by name. With tables=* it also knows the database's tables
 * when the run started: a table the binlog names later was created since, and is captured from then
 * on — every row it has came after its creation, so the binlog holds them all. One that existed at
 * the start (keyless then, or bridge's own) or has no primary key now is not captured, said once.
 */
export class CapturedTables extends Map<string, CapturedTable> {
  /** tables=*: the database's base tables when the run started. */
  existing: Set<string> | undefined;
  /** Tables the binlog named that this run does not capture. */
  readonly notCaptured = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly dialect: MysqlDialect,
  ) {
    super();
  }

  async resolve(field: string, warn: (s: string) => void): Promise<void> {
    for (const [name, info] of await resolveCapturedTables(this.db, field, warn)) this.set(name, new CapturedTable(name, info, this.dialect));
    if (field.trim() === '*') this.existing = await baseTables(async (sql) => (await this.db.query(sql)).rows);
  }

  /** A table the binlog names that the run has not read yet (a captured one whose columns changed, or a new one): read it; false when it is not captured. */
  async introspect(name: string, warn: (s: string) => void, info: (s: string) => void): Promise<boolean> {
    const now = await this.db.withConnection((c) => this.dialect.introspect(c, name));
    const known = this.get(name);
    if (known) {
      known.refresh(now);
      return true;
    }
    // bridge's own tables are left out without a word.
    const why = CHECKPOINT_TABLE.test(name) ? '' : !now.exists ? 'it is gone' : this.existing?.has(name) ? 'it existed when the capture started (tables=* lists the tables then)' : !now.primaryKey.length ? 'it has no primary key' : undefined;
    if (why !== undefined) {
      this.notCaptured.add(name);
      if (why) warn(`tables=*: ${name} is not captured: ${why}`);
      return false;
    }
    this.set(name, new CapturedTable(name, now, this.dialect));
    info(`tables=*: capturing ${name}, created while the capture ran`);
    return true;
  }
}
