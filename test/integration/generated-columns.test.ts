import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Reported: a copy into a table that has the same generated column failed with exit 1
 * (PostgreSQL → PostgreSQL into an identical schema, → MariaDB, NDJSON → PostgreSQL) and the dry
 * run said nothing. Rule: generated columns of the target are left out of every insert (the
 * target computes them; the plan says so): the default INSERT, the COPY / LOAD DATA paths and key=
 * upserts. Typed creation re-creates them where the kind can (PostgreSQL → PostgreSQL, MariaDB →
 * MariaDB); elsewhere they become plain columns holding the copied values, flagged in the plan.
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;
const MANY = 3000;

const PG_GEN = (t: string): string => `CREATE TABLE ${t} (id int PRIMARY KEY, a int, b int GENERATED ALWAYS AS (a * 2) STORED, s text GENERATED ALWAYS AS ('#' || id) STORED)`;
const MARIA_GEN = (t: string): string => `CREATE TABLE ${t} (id int PRIMARY KEY, a int, b int AS (a * 2) STORED, s varchar(20) AS (CONCAT('#', id)) VIRTUAL)`;

beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS gen_src, gen_many, gen_same, gen_same_many, gen_keyed, gen_made, gen_from_file, gen_from_sqlite');
  await pg.exec(PG_GEN('gen_src'));
  await pg.exec('INSERT INTO gen_src (id, a) VALUES (1, 5), (2, 7), (3, NULL)');
  await pg.exec(PG_GEN('gen_many'));
  await pg.exec(`INSERT INTO gen_many (id, a) SELECT g, g % 1000 FROM generate_series(1, ${MANY}) g`);
  await maria.exec('DROP TABLE IF EXISTS gen_src, gen_same, gen_many, gen_made');
  await maria.exec(MARIA_GEN('gen_src'));
  await maria.exec('INSERT INTO gen_src (id, a) VALUES (1, 5), (2, 7), (3, NULL)');
});
afterAll(async () => {
  await pg.close();
  await maria.close();
});

const pgRows = (t: string): Promise<Record<string, unknown>[]> => pg.rows(`SELECT id, a, b, s FROM ${t} ORDER BY id`);
const mariaRows = (t: string): Promise<Record<string, unknown>[]> => maria.rows(`SELECT id, a, b, s FROM ${t} ORDER BY id`);
const EXPECTED = [
  { id: 1, a: 5, b: 10, s: '#1' },
  { id: 2, a: 7, b: 14, s: '#2' },
  { id: 3, a: null, b: null, s: '#3' },
];
const pgGenerated = async (t: string): Promise<Record<string, unknown>[]> =>
  pg.rows(`SELECT a.attname AS c, a.attgenerated AS g, pg_get_expr(d.adbin, d.adrelid) AS e FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid = '${t}'::regclass AND a.attnum > 0 ORDER BY a.attnum`);

describe('generated columns in the target are left out of the insert', () => {
  it('PostgreSQL → PostgreSQL into an identical table (INSERT path): exit 0, the target computes b and s', async () => {
    await pg.exec(PG_GEN('gen_same'));
    const r = await bridge(['copy', pg.url('gen_src'), pg.url('gen_same', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/dropped/);
    expect(await pgRows('gen_same')).toEqual(EXPECTED);
  });

  it(`PostgreSQL → PostgreSQL, ${MANY} rows (COPY path): exit 0, every row computed by the target`, async () => {
    await pg.exec(PG_GEN('gen_same_many'));
    const r = await bridge(['copy', pg.url('gen_many'), pg.url('gen_same_many', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await pg.rows('SELECT count(*)::int AS n, sum(b)::int AS b FROM gen_same_many')).toEqual(await pg.rows('SELECT count(*)::int AS n, sum(b)::int AS b FROM gen_many'));
  });

  it('PostgreSQL → PostgreSQL with key= (upsert): exit 0, an update recomputes b', async () => {
    await pg.exec(PG_GEN('gen_keyed'));
    expect((await bridge(['copy', pg.url('gen_src'), pg.url('gen_keyed', 'columns=auto&key=id'), '--progress', 'none'])).exitCode).toBe(0);
    await pg.exec('UPDATE gen_src SET a = 100 WHERE id = 1');
    try {
      const r = await bridge(['copy', pg.url('gen_src'), pg.url('gen_keyed', 'columns=auto&key=id'), '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect((await pgRows('gen_keyed'))[0]).toEqual({ id: 1, a: 100, b: 200, s: '#1' });
    } finally {
      await pg.exec('UPDATE gen_src SET a = 5 WHERE id = 1');
    }
  });

  it('the dry run says the target computes them', async () => {
    const r = await bridge(['copy', pg.url('gen_src'), pg.url('gen_same', 'columns=auto'), '--dry-run', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/generated: b, s: computed by the target, left out of the insert/);
    expect(r.stdout).toMatch(/ b integer → b integer \(generated: computed by the target, not written\)/);
  });

  it('PostgreSQL → MariaDB into a table with a STORED and a VIRTUAL generated column (INSERT and LOAD DATA paths)', async () => {
    await maria.exec(MARIA_GEN('gen_same'));
    const r = await bridge(['copy', pg.url('gen_src'), maria.url('gen_same', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await mariaRows('gen_same')).toEqual(EXPECTED);
    await maria.exec(MARIA_GEN('gen_many'));
    const many = await bridge(['copy', pg.url('gen_many'), maria.url('gen_many', 'columns=auto'), '--progress', 'none']);
    expect(many.exitCode, many.stderr).toBe(0);
    expect(await maria.rows('SELECT CAST(count(*) AS CHAR) AS n, CAST(sum(b) AS CHAR) AS b FROM gen_many')).toEqual([{ n: String(MANY), b: String((await pg.rows('SELECT sum(b)::int AS b FROM gen_many'))[0]!.b) }]);
  });

  it('NDJSON → PostgreSQL: a value given for a generated column is left out, the target computes it', async () => {
    await pg.exec(PG_GEN('gen_from_file'));
    const file = writeNdjson(dir, 'gen.ndjson', [{ id: 1, a: 5, b: 999, s: 'x' }, { id: 2, a: 7 }]);
    const r = await bridge(['copy', file, pg.url('gen_from_file', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await pgRows('gen_from_file')).toEqual(EXPECTED.slice(0, 2));
  });
});

describe('typed creation and generated columns', () => {
  it('PostgreSQL → PostgreSQL: re-created as GENERATED ALWAYS AS (…) STORED', async () => {
    const r = await bridge(['copy', pg.url('gen_src'), pg.url('gen_made', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await pgGenerated('gen_made')).toEqual(await pgGenerated('gen_src'));
    expect(await pgRows('gen_made')).toEqual(EXPECTED);
  });

  it('MariaDB → MariaDB: re-created with the same expressions, STORED and VIRTUAL', async () => {
    const r = await bridge(['copy', maria.url('gen_src'), maria.url('gen_made', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const gen = (t: string): Promise<Record<string, unknown>[]> =>
      maria.rows(`SELECT COLUMN_NAME AS c, EXTRA AS x, GENERATION_EXPRESSION AS e FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${t}' ORDER BY ORDINAL_POSITION`);
    expect(await gen('gen_made')).toEqual(await gen('gen_src'));
    expect(await mariaRows('gen_made')).toEqual(EXPECTED);
  });

  it('PostgreSQL → SQLite: plain columns holding the copied values, flagged in the plan', async () => {
    const file = path.join(dir, 'gen.db');
    const url = `sqlite://${file}?table=gen&columns=auto&auto_create_table=true`;
    const dry = await bridge(['copy', pg.url('gen_src'), url, '--dry-run', '--progress', 'none']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/generated in the source: b, s: created as plain columns holding the copied values/);
    const r = await bridge(['copy', pg.url('gen_src'), url, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const db = new Database(file);
    try {
      expect(db.prepare('SELECT id, a, b, s FROM gen ORDER BY id').all()).toEqual(EXPECTED);
    } finally {
      db.close();
    }
  });

  it('SQLite generated columns (table_xinfo) are read: into PostgreSQL as plain columns with their values, into an identical SQLite table left out', async () => {
    const file = path.join(dir, 'gen-src.db');
    const db = new Database(file);
    const ddl = "CREATE TABLE g (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED, s TEXT AS ('#' || id) VIRTUAL)";
    db.exec(`${ddl}; INSERT INTO g (id, a) VALUES (1, 5), (2, 7), (3, NULL)`);
    db.close();
    const r = await bridge(['copy', `sqlite://${file}?table=g`, pg.url('gen_from_sqlite', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/dropped/);
    expect(await pg.rows('SELECT id::int AS id, a::int AS a, b::int AS b, s FROM gen_from_sqlite ORDER BY id')).toEqual(EXPECTED);
    const same = path.join(dir, 'gen-same.db');
    const t = new Database(same);
    t.exec(ddl);
    t.close();
    const s = await bridge(['copy', `sqlite://${file}?table=g`, `sqlite://${same}?table=g&columns=auto`, '--progress', 'none']);
    expect(s.exitCode, s.stderr).toBe(0);
    const back = new Database(same);
    try {
      expect(back.prepare('SELECT id, a, b, s FROM g ORDER BY id').all()).toEqual(EXPECTED);
    } finally {
      back.close();
    }
  });
});
