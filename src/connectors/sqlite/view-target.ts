import { configError } from '../../core/errors.js';
import type { Database } from '../sql/database.js';

/**
 * SQLite writes into a view only through an INSTEAD OF INSERT trigger. Without one every insert
 * failed with exit 1 ('cannot modify v because it is a view') as if the run had broken: it is the
 * route's mistake, refused when the sink opens (a dry run too), naming the view and the fix.
 */
export async function refuseUnwritableView(db: Database, table: string): Promise<void> {
  const [schema, name] = table.includes('.') ? table.split('.') : ['main', table];
  const master = `${db.dialect.quote(schema!)}.sqlite_master`;
  // Names match as SQLite matches them, without regard to case (ASCII).
  const view = await db.query(`SELECT 1 FROM ${master} WHERE type = 'view' AND name = ? COLLATE NOCASE`, [name]);
  if (view.rows.length === 0) return;
  const triggers = await db.query(`SELECT sql FROM ${master} WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE`, [name]);
  if (triggers.rows.some(([sql]) => /\bINSTEAD\s+OF\s+INSERT\b/i.test(String(sql)))) return;
  throw configError(`${table} is a SQLite view without an INSTEAD OF INSERT trigger, so SQLite cannot write into it: name the table it reads (table=…), or create the trigger`);
}
