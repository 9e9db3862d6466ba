import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll } from 'vitest';
import { postgres, sqlite, type TestDb } from './databases.js';

/** The MariaDB with the row-based binlog on (scripts/mariadb-binlog.sh, port 3307); unset: binlog tests skip. */
export const BINLOG_URL = process.env.BRIDGE_BINLOG_URL;

/** A connection to the binlog server for setting up tables and reading what is there. */
export interface BinlogDb {
  /** mariadb+cdc://… of the test database with `query` fields. */
  cdc(query: string): string;
  /** mariadb://… of the test database with `query` fields (the plain source). */
  plain(query: string): string;
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** Connects, or says why the binlog tests cannot run here (no server named); a named server that does not answer is an error. */
export async function binlogDb(): Promise<BinlogDb | string> {
  if (!BINLOG_URL) return 'BRIDGE_BINLOG_URL is not set (scripts/mariadb-binlog.sh starts the server and .ci/run sets it)';
  let conn: mysql.Connection;
  try {
    conn = await mysql.createConnection({ uri: BINLOG_URL.replace(/^mariadb:/, 'mysql:'), multipleStatements: true, charset: 'UTF8MB4_UNICODE_CI', supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
  } catch (e) {
    // Named but not there: a failure, not a skip (CI starts it; a skip would hide that it did not).
    throw new Error(`BRIDGE_BINLOG_URL names ${BINLOG_URL}, which is unreachable (${(e as Error).message}): start it with scripts/mariadb-binlog.sh, or unset BRIDGE_BINLOG_URL to skip these tests`);
  }
  await conn.query("SET time_zone = '+00:00'");
  const [, rest] = BINLOG_URL.split('://');
  return {
    cdc: (q) => `mariadb+cdc://${rest}?${q}`,
    plain: (q) => `mariadb://${rest}?${q}`,
    exec: async (sql) => void (await conn.query(sql)),
    rows: async (sql) => (await conn.query(sql))[0] as Record<string, unknown>[],
    close: () => conn.end(),
  };
}

/** The binlog server and the two mirror databases a binlog test writes into, opened before its tests and closed after. */
export interface BinlogSuite {
  my: BinlogDb;
  pg: TestDb;
  lite: TestDb;
}

/** Registers the suite's hooks; `skip` is the reason the tests cannot run here, if any (then nothing is opened). */
export async function binlogSuite(name: string, dir: string): Promise<{ skip: string | undefined; s: BinlogSuite }> {
  const db = await binlogDb();
  const skip = typeof db === 'string' ? db : undefined;
  if (skip) console.warn(`${name}: skipped: ${skip}`);
  const s = {} as BinlogSuite;
  beforeAll(async () => {
    if (skip) return;
    Object.assign(s, { my: db as BinlogDb, pg: await postgres(), lite: sqlite(path.join(dir, 'mirror.db')) });
  });
  afterAll(async () => {
    if (skip) return;
    await s.my.close();
    await s.pg.close();
    await s.lite.close();
  });
  return { skip, s };
}
