import type { KindDriver } from '../sql/kind.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection } from '../sql/types.js';
import { SqlServerDialect } from './dialect.js';
import { classifyMssql, mssqlPoolFactory } from './driver.js';

export const sqlserverKind: KindDriver = {
  dialect: new SqlServerDialect(),
  poolFactory: (ep, warn) => mssqlPoolFactory(ep, warn) as unknown as PoolFactory<SqlConnection>,
  classify: classifyMssql,
  loose: false,
  // TDS bulk load for the default insert, loaded when a route uses it.
  defaultWriter: async (db, table, payload) => new (await import('./default-bulk.js')).MssqlDefaultWriter(db, table, payload),
};
