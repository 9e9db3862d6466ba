import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 15: appends into MariaDB/MySQL go through LOAD DATA LOCAL INFILE. With LOCAL the server
 * turns errors into warnings and skips or adjusts rows; these scenarios show nothing is skipped or
 * adjusted quietly.
 */
const dir = tempDir();
let my: TestDb;
let pg: TestDb;
const content = (t: string) => my.rows(`SELECT id, HEX(t) AS t, d, CAST(j AS CHAR) AS j, ts, y FROM ${t} ORDER BY id`);

beforeAll(async () => {
  my = await mysqlLike('mariadb');
  pg = await postgres();
});
afterAll(async () => {
  await my.close();
  await pg.close();
});

describe('LOAD DATA appends', () => {
  it('MariaDB → MariaDB: tabs, newlines, backslashes, the text \\N, NUL, ^Z, NULL, JSON, YEAR 0 and microseconds land exactly', async () => {
    const cols = 'id int PRIMARY KEY, t text, d decimal(30,10), j json, ts datetime(6), y year';
    await my.exec(`DROP TABLE IF EXISTS ld_src, ld_dst; CREATE TABLE ld_src (${cols}); CREATE TABLE ld_dst (${cols})`);
    await my.exec('SET SESSION max_recursive_iterations = 100000');
    await my.exec(`INSERT INTO ld_src WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 1500)
      SELECT i, CONCAT('row', i, CASE i % 7 WHEN 0 THEN '\\t' WHEN 1 THEN '\\n' WHEN 2 THEN '\\\\' WHEN 3 THEN '\\\\N' WHEN 4 THEN CHAR(0) WHEN 5 THEN CHAR(26) ELSE 'é☃' END),
        i / 7, JSON_OBJECT('i', i, 'n', 30.00), TIMESTAMP('2024-02-29 23:59:59.000001') + INTERVAL i SECOND, IF(i % 2, 0, 2155) FROM g`);
    await my.exec(`UPDATE ld_src SET t = NULL, d = NULL WHERE id % 100 = 0; UPDATE ld_src SET t = '\\\\N' WHERE id = 1; UPDATE ld_src SET t = '' WHERE id = 2`);
    const r = await bridge(['copy', my.url('ld_src'), my.url('ld_dst', 'columns=auto'), '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await content('ld_dst')).toEqual(await content('ld_src'));
  });

  it('batches spanning many 256 KB chunks, written into chunks reused from earlier batches, and a 3 MB value land exactly', async () => {
    const cols = 'id int PRIMARY KEY, t longtext, y year';
    await my.exec(`DROP TABLE IF EXISTS ld_big_src, ld_big_dst; CREATE TABLE ld_big_src (${cols}); CREATE TABLE ld_big_dst (${cols})`);
    await my.exec('SET SESSION max_recursive_iterations = 100000');
    // Rows of different lengths (multi-byte text, escapes), so reused chunks hold longer stale bytes than the rows written into them.
    await my.exec(`INSERT INTO ld_big_src WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 9000)
      SELECT i, REPEAT(CONCAT(MD5(i), IF(i % 5 = 0, 'é☃\\t\\\\', '')), 1 + (i * 37) % 40), IF(i % 3 = 0, 0, 1901 + i % 250) FROM g`);
    await my.exec(`UPDATE ld_big_src SET t = REPEAT('ü\\n', 1500000) WHERE id = 4500`);
    const r = await bridge(['copy', my.url('ld_big_src'), my.url('ld_big_dst', 'columns=auto'), '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    const digest = (t: string) => my.rows(`SELECT id, MD5(t) AS h, y FROM ${t} ORDER BY id`);
    const want = await digest('ld_big_src');
    expect(want).toHaveLength(9000);
    expect(await digest('ld_big_dst')).toEqual(want);
    expect(await my.rows('SELECT LENGTH(t) AS n FROM ld_big_dst WHERE id = 4500')).toEqual([{ n: 4500000 }]);
  });

  it('a key already in the target is not skipped (LOAD DATA LOCAL would): the batch is rolled back and the row rejected by name', async () => {
    await pg.exec('DROP TABLE IF EXISTS ld_pg; CREATE TABLE ld_pg (id int PRIMARY KEY, t text); INSERT INTO ld_pg SELECT g, $$v$$ || g FROM generate_series(1, 1000) g');
    await my.exec('DROP TABLE IF EXISTS ld_dup; CREATE TABLE ld_dup (id int PRIMARY KEY, t text); INSERT INTO ld_dup VALUES (700, "already here")');
    const dead = path.join(dir, 'dup.ndjson');
    const r = await bridge(['copy', pg.url('ld_pg'), my.url('ld_dup', 'columns=auto'), '--dead-letter', `file://${dead}`, '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await my.rows('SELECT COUNT(*) AS n, SUM(id) AS s FROM ld_dup')).toEqual([{ n: '1000', s: '500500' }]);
    expect(await my.rows('SELECT t FROM ld_dup WHERE id = 700')).toEqual([{ t: 'already here' }]);
    const got = parseLines(readFileSync(dead, 'utf8')) as { payload: { id: number }; metadata: Record<string, string> }[];
    expect(got.map((d) => [d.payload.id, d.metadata['bridge.error']])).toEqual([[700, expect.stringMatching(/Duplicate entry '700'/)]]);
  });
});
