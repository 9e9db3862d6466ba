import type { KindDriver } from '../sql/kind.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection } from '../sql/types.js';
import { MysqlDialect } from './dialect.js';
import { classifyMysql, mysqlPoolFactory } from './driver.js';
import { MysqlRowStream } from './row-stream.js';

export function mysqlKind(kind: 'mysql' | 'mariadb'): KindDriver {
  return {
    dialect: new MysqlDialect(kind),
    poolFactory: (ep, warn) => mysqlPoolFactory(ep, warn) as unknown as PoolFactory<SqlConnection>,
    classify: classifyMysql,
    loose: false,
    columnsWriter: async (db, o) => new (await import('./load-data.js')).MysqlColumnsWriter(db, o),
    changeSource: async (ep) => new (await import('./binlog-source.js')).BinlogSource(ep),
    schemaExtras: async () => (await import('./schema-extras.js')).mysqlSchemaExtras(kind),
    streamRows: (db, select, params) => new MysqlRowStream(db, select, params),
    statementLimit: async (db) => Number((await db.query('SELECT @@max_allowed_packet')).rows[0]?.[0] ?? 16 << 20),
    keylessReader: async (db, table, rows, select) => new (await import('./read-stream.js')).StreamReader(db, table, rows, select),
  };
}
