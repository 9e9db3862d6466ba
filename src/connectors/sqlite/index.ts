import type { KindDriver } from '../sql/kind.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection } from '../sql/types.js';
import { SqliteDialect } from './dialect.js';
import { classifySqlite, sqlitePoolFactory } from './driver.js';

export const sqliteKind: KindDriver = {
  dialect: new SqliteDialect(),
  poolFactory: (ep) => sqlitePoolFactory(ep) as unknown as PoolFactory<SqlConnection>,
  classify: classifySqlite,
  loose: true,
  // The generic writers, once the target is one SQLite can write into (a view needs its trigger).
  columnsWriter: async (db, o) => void (await (await import('./view-target.js')).refuseUnwritableView(db, o.table)),
  schemaExtras: async () => (await import('./schema-extras.js')).sqliteSchemaExtras,
  // A table without a key is paged by its rowid; a view has none, nor a table whose own column is named rowid (it hides it): read by one statement.
  keylessReader: async (db, table, rows, select) => {
    const [schema, name] = table.includes('.') ? table.split('.') : ['main', table];
    // Names match as SQLite matches them, without regard to case (ASCII).
    const view = await db.query(`SELECT 1 FROM ${db.dialect.quote(schema!)}.sqlite_master WHERE type = 'view' AND name = ? COLLATE NOCASE`, [name]);
    const hidden = view.rows.length ? view : await db.query(`SELECT 1 FROM pragma_table_xinfo(?, ?) WHERE lower(name) = 'rowid'`, [name, schema]);
    return hidden.rows.length ? new (await import('./read-view.js')).ViewReader(db, table, rows, select, view.rows.length ? 'a view' : 'a table whose column rowid hides the row id') : undefined;
  },
};
