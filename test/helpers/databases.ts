import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import path from 'node:path';
import { DEFAULT_URLS } from './base-urls.js';

export const PG_URL = process.env.BRIDGE_TEST_PG_URL ?? DEFAULT_URLS.pg;
export const MYSQL_URL = process.env.BRIDGE_TEST_MYSQL_URL ?? DEFAULT_URLS.mysql;
export const MARIADB_URL = process.env.BRIDGE_TEST_MARIADB_URL ?? DEFAULT_URLS.mariadb;

/** A database the tests can run SQL on directly, to set up tables and check what landed. */
export interface TestDb {
  kind: 'postgres' | 'mysql' | 'mariadb' | 'sqlite';
  /** Endpoint URL for `table`, with extra query fields. */
  url(table: string, query?: string): string;
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function postgres(): Promise<TestDb> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query("SET TimeZone = 'UTC'");
  return {
    kind: 'postgres',
    url: (t, q) => `${PG_URL}?table=${t}${q ? `&${q}` : ''}`,
    exec: async (sql) => {
      await client.query(sql);
    },
    rows: async (sql) => (await client.query(sql)).rows as Record<string, unknown>[],
    close: () => client.end(),
  };
}

export async function mysqlLike(kind: 'mysql' | 'mariadb'): Promise<TestDb> {
  const conn = await mysql.createConnection({ uri: MYSQL_URL.replace(/^mysql:/, 'mysql:'), multipleStatements: true, charset: 'UTF8MB4_UNICODE_CI', supportBigNumbers: true, bigNumberStrings: true, dateStrings: true, decimalNumbers: false });
  await conn.query("SET time_zone = '+00:00'");
  const base = kind === 'mysql' ? MYSQL_URL : MARIADB_URL;
  return {
    kind,
    url: (t, q) => `${base}?table=${t}${q ? `&${q}` : ''}`,
    exec: async (sql) => {
      await conn.query(sql);
    },
    rows: async (sql) => (await conn.query(sql))[0] as Record<string, unknown>[],
    close: () => conn.end(),
  };
}

export function sqlite(file: string): TestDb {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.defaultSafeIntegers(true);
  return {
    kind: 'sqlite',
    url: (t, q) => `sqlite://${path.resolve(file)}?table=${t}${q ? `&${q}` : ''}`,
    exec: async (sql) => {
      db.exec(sql);
    },
    rows: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
    close: async () => {
      db.close();
    },
  };
}

/** Every kind that runs on this machine (MySQL is tested through the MariaDB server with mysql://). */
export async function allKinds(sqliteFile: string): Promise<TestDb[]> {
  return [await postgres(), await mysqlLike('mysql'), await mysqlLike('mariadb'), sqlite(sqliteFile)];
}

/** A session of its own on PostgreSQL or MariaDB, for transactions held open beside a bridge run. */
export interface Session {
  run(sql: string): Promise<unknown>;
  close(): Promise<void>;
}
export async function session(kind: 'postgres' | 'mariadb'): Promise<Session> {
  if (kind === 'postgres') {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    return { run: (sql) => c.query(sql), close: () => c.end() };
  }
  const c = await mysql.createConnection({ uri: MYSQL_URL });
  return { run: (sql) => c.query(sql), close: () => c.end() };
}
