import mysql from 'mysql2/promise';

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

/** Connects, or says why the binlog tests cannot run here. */
export async function binlogDb(): Promise<BinlogDb | string> {
  if (!BINLOG_URL) return 'BRIDGE_BINLOG_URL is not set (scripts/mariadb-binlog.sh starts the server and .ci/run sets it)';
  let conn: mysql.Connection;
  try {
    conn = await mysql.createConnection({ uri: BINLOG_URL.replace(/^mariadb:/, 'mysql:'), multipleStatements: true, charset: 'UTF8MB4_UNICODE_CI', supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
  } catch (e) {
    return `the binlog MariaDB at ${BINLOG_URL} is unreachable (${(e as Error).message})`;
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
