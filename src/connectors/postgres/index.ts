import type { Database } from '../sql/database.js';
import type { KindDriver } from '../sql/kind.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection } from '../sql/types.js';
import { parsePgArray } from './array.js';
import { PostgresDialect } from './dialect.js';
import { BINARY_KEY_TYPES, inlineParams } from './copy-out.js';
import { CopyOutStream } from './copy-stream.js';
import { classifyPg, pgPoolFactory } from './driver.js';

/** Whether the table is a view (one not made yet is not). */
async function isView(db: Database, table: string): Promise<boolean> {
  const r = await db.query('SELECT relkind FROM pg_class WHERE oid = to_regclass($1)', [db.dialect.table(table)]);
  return r.rows[0]?.[0] === 'v';
}

export const postgresKind: KindDriver = {
  dialect: new PostgresDialect(),
  poolFactory: (ep, warn) => pgPoolFactory(ep, warn) as unknown as PoolFactory<SqlConnection>,
  classify: classifyPg,
  loose: false,
  parseArray: parsePgArray,
  // Its own paths are loaded when a route uses them: COPY writers, ctid paging, change capture.
  // COPY refuses a view ("cannot copy to view"), which takes INSERTs: the generic writers' multi-row INSERTs then.
  columnsWriter: async (db, o) => ((await isView(db, o.table)) ? undefined : new (await import('./columns-copy.js')).PgColumnsWriter(db, o)),
  defaultWriter: async (db, table, payload) => ((await isView(db, table)) ? undefined : new (await import('./default-copy.js')).PgDefaultWriter(db, table, payload)),
  bulkCopy: async (insert) => {
    const { parseCopyQuery, BulkCopyWriter } = await import('./bulk-copy.js');
    const plan = parseCopyQuery(insert);
    return (db) => new BulkCopyWriter(db, plan, insert);
  },
  keylessReader: async (db, table, rows) => {
    const kind = String((await db.query('SELECT relkind FROM pg_class WHERE oid = $1::regclass', [db.dialect.table(table)])).rows[0]?.[0] ?? 'r');
    const { HEAP_KINDS, WholeReader } = await import('./read-whole.js');
    return HEAP_KINDS.has(kind) ? new (await import('./read-ctid.js')).CtidReader(db, table, rows) : new WholeReader(db, table, rows, kind);
  },
  streamWire: (db, select, params, columns, format) => new CopyOutStream(db, inlineParams(select, params), columns, format),
  binaryWire: (keys) => keys.length > 0 && keys.every((k) => k.castType !== undefined && BINARY_KEY_TYPES.has(k.castType)),
  changeSource: async (ep) => new (await import('./cdc-source.js')).CdcSource(ep),
  schemaExtras: async () => (await import('./schema-extras.js')).pgSchemaExtras,
};
