import mysql from 'mysql2/promise';
import pg from 'pg';
import { DEFAULT_URLS } from './base-urls.js';

/**
 * Test files that only need tables of their own run several at a time (vitest.config.ts, project
 * "parallel"). Each worker gets databases of its own on PostgreSQL and MariaDB: test_w1, test_w2, …
 * beside the base database `test`, so two files creating a table of the same name never meet. Files
 * that share something server-wide (replication slots, the binlog server, open transactions other
 * tails wait for, timing) stay in the "serial" project, on the base database, one at a time.
 */
export const WORKERS = Math.max(1, Number(process.env.BRIDGE_TEST_WORKERS ?? 3));

const BASE = {
  pg: process.env.BRIDGE_TEST_PG_URL ?? DEFAULT_URLS.pg,
  mysql: process.env.BRIDGE_TEST_MYSQL_URL ?? DEFAULT_URLS.mysql,
  mariadb: process.env.BRIDGE_TEST_MARIADB_URL ?? DEFAULT_URLS.mariadb,
};

/** The same URL naming the database of worker `id` (URLs here carry no query). */
const forWorker = (url: string, id: number): string => `${url}_w${id}`;
const dbName = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** Points this worker's tests at its databases: run as a setup file, before a test file is imported. */
export function useWorkerDatabases(id: number): void {
  process.env.BRIDGE_TEST_PG_URL = forWorker(BASE.pg, id);
  process.env.BRIDGE_TEST_MYSQL_URL = forWorker(BASE.mysql, id);
  process.env.BRIDGE_TEST_MARIADB_URL = forWorker(BASE.mariadb, id);
}

/** Creates every worker's databases empty, with the base database's encoding and collation. */
export async function createWorkerDatabases(): Promise<void> {
  const client = new pg.Client({ connectionString: BASE.pg });
  await client.connect();
  try {
    const base = dbName(BASE.pg);
    const [db] = (await client.query('SELECT pg_encoding_to_char(encoding) AS enc, datcollate, datctype FROM pg_database WHERE datname = $1', [base])).rows as { enc: string; datcollate: string; datctype: string }[];
    for (let id = 1; id <= WORKERS; id++) {
      const name = `${base}_w${id}`;
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING '${db!.enc}' LC_COLLATE '${db!.datcollate}' LC_CTYPE '${db!.datctype}'`);
    }
  } finally {
    await client.end();
  }
  const conn = await mysql.createConnection({ uri: BASE.mysql });
  try {
    const base = dbName(BASE.mysql);
    const [[db]] = (await conn.query('SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [base])) as unknown as [{ cs: string; co: string }[]];
    for (let id = 1; id <= WORKERS; id++) {
      const name = `${base}_w${id}`;
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET ${db!.cs} COLLATE ${db!.co}`);
    }
  } finally {
    await conn.end();
  }
}
