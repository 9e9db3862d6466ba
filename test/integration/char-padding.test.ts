import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Reported: char(n) copied into a table bridge creates became varchar/text holding the padding
 * ('ab' stored as 'ab   ', so `v = 'ab'` was false afterwards), even PostgreSQL → PostgreSQL.
 * Rule (docs/types.md): typed creation keeps char(n) where the target has it (PostgreSQL
 * character(n), MySQL/MariaDB CHAR(n) up to 255); elsewhere the value lands as the source reads it
 * (PostgreSQL with its padding, MySQL/MariaDB without trailing spaces) and the plan says so (LOSSY).
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;

beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS chars_src, chars_pg, chars_wide, chars_from_maria');
  await pg.exec('CREATE TABLE chars_src (id int PRIMARY KEY, v char(5), n char(5) NOT NULL)');
  await pg.exec("INSERT INTO chars_src VALUES (1, 'ab', 'x'), (2, 'abcde', 'yy'), (3, NULL, ''), (4, ' a', 'z ')");
  await pg.exec('CREATE TABLE chars_wide (id int PRIMARY KEY, w char(300))');
  await pg.exec("INSERT INTO chars_wide VALUES (1, 'wide')");
  await maria.exec('DROP TABLE IF EXISTS chars_maria, chars_src_m');
  await maria.exec('CREATE TABLE chars_src_m (id int PRIMARY KEY, v char(5)) DEFAULT CHARSET utf8mb4');
  await maria.exec("INSERT INTO chars_src_m VALUES (1, 'ab'), (2, 'abcde'), (3, NULL)");
});
afterAll(async () => {
  await pg.close();
  await maria.close();
});

const created = 'columns=auto&auto_create_table=true';
const pgTypes = async (table: string): Promise<string[]> =>
  (await pg.rows(`SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = '${table}'::regclass AND attnum > 0 ORDER BY attnum`)).map((r) => String(r.t));
const mariaTypes = async (table: string): Promise<string[]> =>
  (await maria.rows(`SELECT COLUMN_TYPE AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${table}' ORDER BY ORDINAL_POSITION`)).map((r) => String(r.t));

describe('char(n) into a table bridge creates', () => {
  it('PostgreSQL → PostgreSQL: character(n), and v = \'ab\' finds the row', async () => {
    const r = await bridge(['copy', pg.url('chars_src'), pg.url('chars_pg', created), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await pgTypes('chars_pg')).toEqual(['integer', 'character(5)', 'character(5)']);
    expect(await pg.rows("SELECT id FROM chars_pg WHERE v = 'ab' AND n = 'x'")).toEqual([{ id: 1 }]);
    const read = (t: string): Promise<Record<string, unknown>[]> => pg.rows(`SELECT id, v::text AS v, n::text AS n, octet_length(v) AS lv FROM ${t} ORDER BY id`);
    expect(await read('chars_pg')).toEqual(await read('chars_src'));
  });

  it('PostgreSQL → MariaDB: CHAR(n), and v = \'ab\' finds the row', async () => {
    await maria.exec('DROP TABLE IF EXISTS chars_pg');
    const r = await bridge(['copy', pg.url('chars_src'), maria.url('chars_pg', created), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await mariaTypes('chars_pg')).toEqual(['int(11)', 'char(5)', 'char(5)']);
    expect(await maria.rows("SELECT id FROM chars_pg WHERE v = 'ab' AND n = 'x'")).toEqual([{ id: 1 }]);
    expect(await maria.rows('SELECT id, v FROM chars_pg ORDER BY id')).toEqual([{ id: 1, v: 'ab' }, { id: 2, v: 'abcde' }, { id: 3, v: null }, { id: 4, v: ' a' }]);
  });

  it('MariaDB → PostgreSQL: character(n)', async () => {
    const r = await bridge(['copy', maria.url('chars_src_m'), pg.url('chars_from_maria', created), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await pgTypes('chars_from_maria')).toEqual(['integer', 'character(5)']);
    expect(await pg.rows("SELECT id FROM chars_from_maria WHERE v = 'ab'")).toEqual([{ id: 1 }]);
  });

  it('PostgreSQL → SQLite: the dry run flags the column LOSSY (padding kept), and the copy keeps it', async () => {
    const file = path.join(dir, 'chars.db');
    const url = `sqlite://${file}?table=chars&${created}`;
    const dry = await bridge(['copy', pg.url('chars_src'), url, '--dry-run', '--progress', 'none']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/ v character\(5\) → v TEXT\s+LOSSY: [^\n]*padding kept/);
    expect(dry.stdout).toMatch(/ n character\(5\) → n TEXT\s+LOSSY: [^\n]*padding kept/);
    const r = await bridge(['copy', pg.url('chars_src'), url, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/7 values converted lossily/);
    const db = new Database(file);
    try {
      expect(db.prepare('SELECT id, v, typeof(v) AS c FROM chars ORDER BY id').all()).toEqual([
        { id: 1, v: 'ab   ', c: 'text' },
        { id: 2, v: 'abcde', c: 'text' },
        { id: 3, v: null, c: 'null' },
        { id: 4, v: ' a   ', c: 'text' },
      ]);
    } finally {
      db.close();
    }
  });

  it('MariaDB → SQLite: not flagged, MariaDB never reads trailing spaces of a CHAR, so each value lands as it reads', async () => {
    const dry = await bridge(['copy', maria.url('chars_src_m'), `sqlite://${path.join(dir, 'chars-m.db')}?table=chars&${created}`, '--dry-run', '--progress', 'none']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/ v char\(5\) → v TEXT *\n/);
  });

  it('PostgreSQL char(300) → MariaDB: VARCHAR(300), flagged LOSSY in the dry run (CHAR holds 255 at most)', async () => {
    await maria.exec('DROP TABLE IF EXISTS chars_wide');
    const dry = await bridge(['copy', pg.url('chars_wide'), maria.url('chars_wide', created), '--dry-run', '--progress', 'none']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/ w character\(300\) → w VARCHAR\(300\)\s+LOSSY: [^\n]*padding kept/);
    const r = await bridge(['copy', pg.url('chars_wide'), maria.url('chars_wide', created), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await mariaTypes('chars_wide')).toEqual(['int(11)', 'varchar(300)']);
  });
});
