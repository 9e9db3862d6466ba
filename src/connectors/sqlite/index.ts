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
  schemaExtras: async () => (await import('./schema-extras.js')).sqliteSchemaExtras,
};
