import { configError } from '../../core/errors.js';
import type { Database } from '../sql/database.js';
import type { TableInfo } from '../sql/types.js';
import { MysqlDialect } from './dialect.js';

type Query = (sql: string, params?: unknown[]) => Promise<unknown[][]>;

/**
 * What row-based change capture needs of the server, each missing one a one-line config error
 * with the fix: the binlog on, in ROW format with FULL row images (a delete then carries the whole
 * old row, an update every column), and the privileges a replica needs. Global values are read:
 * they are what other sessions write with.
 */
export async function checkBinlogServer(q: Query, kind: string): Promise<void> {
  const [row] = await q('SELECT @@GLOBAL.log_bin, @@GLOBAL.binlog_format, @@GLOBAL.binlog_row_image, VERSION()');
  const [logBin, format, image] = (row ?? []).map((v) => String(v ?? '').toUpperCase());
  if (logBin !== '1' && logBin !== 'ON') throw configError(`the ${kind} server's binary log is off (log_bin): start it with --log-bin (and --server-id), which needs a restart`);
  if (format !== 'ROW') throw configError(`binlog_format is ${format} on the ${kind} server; change capture needs ROW: SET GLOBAL binlog_format = 'ROW' (and binlog_format=ROW in its config file)`);
  if (image !== 'FULL') throw configError(`binlog_row_image is ${image} on the ${kind} server; change capture needs FULL (deletes and updates carry whole rows): SET GLOBAL binlog_row_image = 'FULL' (and in its config file)`);
  // Each event then names its columns: a change read after an ALTER TABLE is decoded with the
  // columns it was written with (NO_LOG/MINIMAL: with the table's columns now, wrong across a change).
  const [meta] = await q('SELECT @@GLOBAL.binlog_row_metadata').catch(() => [['FULL']]);
  const rowMeta = String(meta?.[0] ?? 'FULL').toUpperCase();
  if (rowMeta !== 'FULL') throw configError(`binlog_row_metadata is ${rowMeta} on the ${kind} server; change capture needs FULL (each change then names its columns, so one read after an ALTER TABLE is decoded as written): SET GLOBAL binlog_row_metadata = 'FULL' (and in its config file)`);
  const grants = (await q('SHOW GRANTS')).map((r) => String(r[0]).toUpperCase());
  const global = grants.filter((g) => / ON \*\.\* TO /.test(g));
  const has = (...names: string[]): boolean => global.some((g) => g.includes('ALL PRIVILEGES') || names.some((n) => g.includes(n)));
  if (!has('REPLICATION SLAVE', 'REPLICATION REPLICA')) throw configError('reading the binlog needs the REPLICATION SLAVE privilege: GRANT REPLICATION SLAVE ON *.* TO <user>');
  if (!has('REPLICATION CLIENT', 'BINLOG MONITOR', 'SUPER')) throw configError('reading the binlog position needs the REPLICATION CLIENT privilege: GRANT REPLICATION CLIENT ON *.* TO <user>');
}

/** bridge's own checkpoint and position tables are never captured: their writes would feed back into the stream. */
export const CHECKPOINT_TABLE = /^(bridge_cursors_|bridge_positions$)/;

/** The base tables of the connection's database, now. */
export async function baseTables(q: (sql: string) => Promise<unknown[][]>): Promise<Set<string>> {
  return new Set((await q("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'")).map((r) => String(r[0])));
}

/**
 * The tables field as names of the URL's database: `a`, `a,b`, or `*` (its base tables with a
 * primary key; the others are named in a warning). A listed table must exist and have a primary
 * key: the initial copy reads it in key order, and a mirror applies changes by key.
 */
export async function resolveCapturedTables(db: Database, tables: string, warn: (s: string) => void): Promise<Map<string, TableInfo>> {
  const q = async (sql: string, p?: unknown[]) => (await db.query(sql, p)).rows;
  const star = tables.trim() === '*';
  let names: string[];
  if (star) {
    names = (await q("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME")).map((r) => String(r[0])).filter((n) => !CHECKPOINT_TABLE.test(n));
  } else {
    names = tables.split(',').map((s) => s.trim()).filter(Boolean);
    for (const n of names) if (n.includes('.')) throw configError(`tables: ${n}: name tables of the URL's database only (its path), without a database prefix`);
  }
  const dialect = db.dialect as MysqlDialect;
  const out = new Map<string, TableInfo>();
  const keyless: string[] = [];
  for (const name of names) {
    const info = await db.withConnection((c) => dialect.introspect(c, name));
    if (!info.exists) throw configError(`table ${name} does not exist in the ${db.dialect.kind} source database`);
    if (!info.primaryKey.length) {
      if (star) keyless.push(name);
      else throw configError(`table ${name} has no primary key: change capture copies it in key order and applies changes by key; add one (ALTER TABLE ${name} ADD PRIMARY KEY (…))`);
      continue;
    }
    const spatial = info.columns.find((c) => c.variant === 'spatial');
    if (spatial) throw configError(`table ${name}: column ${spatial.name} is spatial, whose binlog value the binlog reader decodes into coordinates only (SRID and type lost): capture cannot give it exactly; leave the table out of tables`);
    out.set(name, info);
  }
  if (keyless.length) warn(`tables=*: ${keyless.join(', ')} ha${keyless.length > 1 ? 've' : 's'} no primary key and ${keyless.length > 1 ? 'are' : 'is'} not captured`);
  if (!out.size) throw configError(`tables=*: the source database has no table with a primary key to capture`);
  return out;
}
