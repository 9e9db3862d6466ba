import Database from 'better-sqlite3';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { MARIADB_URL, mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Reported: typed creation on MariaDB made every text key column VARCHAR(768), which alone fills
 * InnoDB's 3,072-byte key limit, so any composite key with a text column (a PostgreSQL
 * (sku text, warehouse int) key, SQLite WITHOUT ROWID tables) failed with exit 1 "Specified key
 * was too long", while --dry-run exited 0 printing that DDL; in a table=* migration such tables
 * were missing. Rule (docs/types.md): key columns keep the source's declared length; undeclared
 * text/bytes key columns share what the key's other columns leave of the 3,072 bytes (utf8mb4: 4
 * bytes a character); a key that cannot fit is refused before anything is written (exit 2, naming
 * the table and the fix). A table of a list that fails shows in the output and the exit code.
 */
const dir = tempDir();
const SERVER = MARIADB_URL.slice(0, MARIADB_URL.lastIndexOf('/'));
let pg: TestDb;
let maria: TestDb;
const LONG_SKU = 's'.repeat(700);

beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS kl_stock, kl_mixed, kl_wide');
  await pg.exec('CREATE TABLE kl_stock (sku text, warehouse int, qty int, PRIMARY KEY (sku, warehouse))');
  await pg.exec(`INSERT INTO kl_stock VALUES ('${LONG_SKU}', 1, 5), ('b', 2, 7), ('é😀', 3, NULL)`);
  await pg.exec('CREATE TABLE kl_mixed (code varchar(100), name text, at timestamptz, v int, PRIMARY KEY (code, name, at))');
  await pg.exec("INSERT INTO kl_mixed VALUES ('c1', 'n1', '2024-01-01 00:00:00+00', 1)");
  await pg.exec('CREATE TABLE kl_wide (a varchar(500), b varchar(500), PRIMARY KEY (a, b))');
  await pg.exec("INSERT INTO kl_wide VALUES ('x', 'y')");
  await maria.exec('DROP TABLE IF EXISTS kl_stock, kl_mixed, kl_wide, kl_pairs');
});
afterAll(async () => {
  await pg.close();
  await maria.close();
});

const created = 'columns=auto&auto_create_table=true';
const types = async (db: TestDb, table: string): Promise<string[]> =>
  (await db.rows(`SELECT COLUMN_TYPE AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${table}' ORDER BY ORDINAL_POSITION`)).map((r) => String(r.t));

describe('MariaDB typed creation fits composite text keys into 3,072 bytes', () => {
  it('PostgreSQL (sku text, warehouse int) key: the dry run shows DDL that works, the copy lands every row', async () => {
    const dry = await bridge(['copy', pg.url('kl_stock'), maria.url('kl_stock', created), '--dry-run', '--progress', 'none']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("`sku` VARCHAR(767) /*M!100202 COLLATE utf8mb4_nopad_bin */ NOT NULL, `warehouse` INT NOT NULL");
    const r = await bridge(['copy', pg.url('kl_stock'), maria.url('kl_stock', created), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await types(maria, 'kl_stock')).toEqual(['varchar(767)', 'int(11)', 'int(11)']);
    expect(await maria.rows('SELECT sku, warehouse, qty FROM kl_stock ORDER BY warehouse')).toEqual([
      { sku: LONG_SKU, warehouse: 1, qty: 5 },
      { sku: 'b', warehouse: 2, qty: 7 },
      { sku: 'é😀', warehouse: 3, qty: null },
    ]);
  });

  it('a declared varchar(100) keeps its length; the undeclared text column takes what the key leaves', async () => {
    const r = await bridge(['copy', pg.url('kl_mixed'), maria.url('kl_mixed', created), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    // 3072 - 100*4 (code) - 8 (DATETIME(6)) = 2664 bytes = 666 characters.
    expect(await types(maria, 'kl_mixed')).toEqual(['varchar(100)', 'varchar(666)', 'datetime(6)', 'int(11)']);
    expect(await maria.rows('SELECT code, name, v FROM kl_mixed')).toEqual([{ code: 'c1', name: 'n1', v: 1 }]);
  });

  it('SQLite WITHOUT ROWID (two TEXT key columns, a unique pair): each gets half of the key, every row lands', async () => {
    const file = path.join(dir, 'pairs.db');
    const db = new Database(file);
    db.exec(`CREATE TABLE kl_pairs (sku TEXT NOT NULL, loc TEXT NOT NULL, tag TEXT, alt BLOB, PRIMARY KEY (sku, loc), UNIQUE (tag, alt)) WITHOUT ROWID;
             INSERT INTO kl_pairs VALUES ('${'p'.repeat(384)}', 'l1', 't1', x'01'), ('q', 'l2', NULL, NULL)`);
    db.close();
    const r = await bridge(['copy', `sqlite://${file}?table=kl_pairs`, maria.url('kl_pairs', created), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await types(maria, 'kl_pairs')).toEqual(['varchar(384)', 'varchar(384)', 'varchar(384)', 'varbinary(1536)']);
    expect(await maria.rows('SELECT CHAR_LENGTH(sku) AS n, loc FROM kl_pairs ORDER BY loc')).toEqual([{ n: 384, loc: 'l1' }, { n: 1, loc: 'l2' }]);
  });

  it('a key that cannot fit (two varchar(500)) is refused with exit 2 naming the table and the fix, in the dry run too', async () => {
    for (const extra of [['--dry-run'], []]) {
      const r = await bridge(['copy', pg.url('kl_wide'), maria.url('kl_wide', created), ...extra, '--progress', 'none']);
      expect(r.exitCode, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(/kl_wide.*key \(a, b\) needs 4000 bytes.*3072.*create kl_wide yourself/);
    }
    expect(await maria.rows("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'kl_wide'")).toEqual([]);
  });
});

describe('a table=* migration into MariaDB', () => {
  const schema = 'kl_mig';
  beforeAll(async () => {
    await pg.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    await pg.exec(`CREATE TABLE ${schema}.plain (id int PRIMARY KEY, v text); INSERT INTO ${schema}.plain VALUES (1, 'x')`);
    await pg.exec(`CREATE TABLE ${schema}.stock (sku text, warehouse int, PRIMARY KEY (sku, warehouse)); INSERT INTO ${schema}.stock VALUES ('a', 1), ('b', 2)`);
  });

  const target = async (): Promise<mysql.Connection> => {
    const c = await mysql.createConnection({ uri: `${SERVER.replace(/^mariadb:/, 'mysql:')}/test` });
    await c.query(`DROP DATABASE IF EXISTS ${schema}`);
    await c.query(`CREATE DATABASE ${schema}`);
    return c;
  };

  it('lands every table, composite text keys included', async () => {
    const c = await target();
    try {
      const r = await bridge(['copy', `${pg.url(`${schema}.*`)}`, `${SERVER}/${schema}?${created}`, '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/2 tables: 2 done/);
      const [rows] = await c.query(`SELECT (SELECT COUNT(*) FROM ${schema}.plain) AS p, (SELECT COUNT(*) FROM ${schema}.stock) AS s`);
      expect(rows).toEqual([{ p: 1, s: 2 }]);
    } finally {
      await c.end();
    }
  });

  it('a table that cannot be created is never silently missing: named in the output, exit 2, the others land', async () => {
    await pg.exec(`CREATE TABLE ${schema}.wide (a varchar(500), b varchar(500), PRIMARY KEY (a, b)); INSERT INTO ${schema}.wide VALUES ('x', 'y')`);
    const c = await target();
    try {
      const r = await bridge(['copy', `${pg.url(`${schema}.*`)}`, `${SERVER}/${schema}?${created}`, '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/\[kl_mig\.wide\].*key \(a, b\) needs 4000 bytes/);
      expect(r.stderr).toMatch(/3 tables: 2 done, 1 failed \(kl_mig\.wide: exit 2\)/);
      const [rows] = await c.query(`SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${schema}' ORDER BY 1`);
      expect(rows).toEqual([{ t: 'plain' }, { t: 'stock' }]);
    } finally {
      await pg.exec(`DROP TABLE ${schema}.wide`);
      await c.end();
    }
  });
});
