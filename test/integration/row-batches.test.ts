import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 15: a table copied into a table travels as rows (PostgreSQL → PostgreSQL as COPY text,
 * untouched), never as messages, unless a row is rejected: then its batch is written again as
 * messages, which names the row. These scenarios check what lands, value by value.
 */
const dir = tempDir();
let pg: TestDb;
let lite: TestDb;
const text = (t: string) => pg.rows(`SELECT to_jsonb(x)::text AS j FROM ${t} x ORDER BY 1`).then((r) => r.map((x) => x.j));

beforeAll(async () => {
  pg = await postgres();
  lite = sqlite(path.join(dir, 'rows.db'));
});
afterAll(async () => {
  await pg.close();
  await lite.close();
});

describe('rows without messages', () => {
  it('PostgreSQL → PostgreSQL: control characters, backslashes, non-ASCII, NULLs, arrays, bytea and json land byte for byte, paged by a text key with quotes and $1', async () => {
    const cols = `k text PRIMARY KEY, t text, a int[], ta text[], b bytea, j jsonb, js json, n numeric(20,6), f float8, ts timestamptz, iv interval, u uuid`;
    await pg.exec(`DROP TABLE IF EXISTS rb_src, rb_dst; CREATE TABLE rb_src (${cols}); CREATE TABLE rb_dst (${cols})`);
    await pg.exec(`INSERT INTO rb_src VALUES
      ('a''b\\c $1', E'tab\\there\\nnewline\\r\\\\back', '{1,NULL,3}', '{"x y","q\\"uote","back\\\\slash",NULL}', '\\x00ff0a5c', '{"a": [1, 2.50]}', '{ "raw" :  1 }', 123456.000100, 1.5e-300, '2024-02-29 23:59:59.123456+00', '1 day 02:03:04.5', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
      ('é☃𝄞', '', '{}', '{}', '', 'null', 'null', -0.000001, 'NaN', 'infinity', '-1 mon', NULL),
      ('z\\N', '\\N', NULL, NULL, NULL, NULL, NULL, NULL, '-Infinity', '-infinity', NULL, NULL),
      ('zz', NULL, '{-2147483648}', '{""}', '\\x', '"s"', '"s"', 0, -0.0, '0001-01-01 00:00:00+00 BC', '0', '00000000-0000-0000-0000-000000000000')`);
    const r = await bridge(['copy', pg.url('rb_src'), pg.url('rb_dst', 'columns=auto'), '--batch-size', '1', '--progress', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await text('rb_dst')).toEqual(await text('rb_src'));
    expect(r.stderr).toMatch(/"type":"summary","ok":true.*"rows":4,/);
  });

  it('PostgreSQL → PostgreSQL into columns of other types: wire rows are parsed and converted, and a value the target cannot hold is rejected by name', async () => {
    await pg.exec(`DROP TABLE IF EXISTS rc_src, rc_dst; CREATE TABLE rc_src (id int PRIMARY KEY, v text, d numeric(12,3)); CREATE TABLE rc_dst (id bigint PRIMARY KEY, v int, d numeric(12,2))`);
    await pg.exec(`INSERT INTO rc_src SELECT g, g::text, g + 0.25 FROM generate_series(1, 300) g; UPDATE rc_src SET v = 'x\ty' WHERE id = 150; UPDATE rc_src SET d = 1.125 WHERE id = 151`);
    const dead = path.join(dir, 'rc-dead.ndjson');
    const r = await bridge(['copy', pg.url('rc_src'), pg.url('rc_dst', 'columns=auto'), '--dead-letter', `file://${dead}`, '--batch-size', '100', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await pg.rows('SELECT count(*)::int AS n, sum(v)::int AS s FROM rc_dst')).toEqual([{ n: 298, s: (300 * 301) / 2 - 150 - 151 }]);
    const got = parseLines(readFileSync(dead, 'utf8')) as { payload: { id: number }; metadata: Record<string, string> }[];
    expect(got.map((d) => [d.payload.id, d.metadata['bridge.error']])).toEqual([
      [150, expect.stringMatching(/field v is "x\\ty", not an integer for integer/)],
      [151, expect.stringMatching(/field d is "1\.125": numeric\(12,2\) keeps 2 fractional digits/)],
    ]);
  });

  it('SQLite → PostgreSQL: a NUL in a text value rejects that row alone (exit 4 naming it without a dead-letter endpoint), the batches before it landed', async () => {
    await lite.exec(`DROP TABLE IF EXISTS nul_src; CREATE TABLE nul_src (id INTEGER PRIMARY KEY, t TEXT)`);
    await lite.exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 3000) INSERT INTO nul_src SELECT i, 'row ' || i FROM g`);
    await lite.exec(`UPDATE nul_src SET t = 'a' || char(0) || 'b' WHERE id = 2500`);
    await pg.exec('DROP TABLE IF EXISTS nul_dst; CREATE TABLE nul_dst (id int PRIMARY KEY, t text)');
    const r = await bridge(['copy', lite.url('nul_src'), pg.url('nul_dst', 'columns=auto'), '-q']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/message [0-9a-f]+: field t holds a NUL character/);
    expect(await pg.rows('SELECT count(*)::int AS n, max(id) AS m FROM nul_dst')).toEqual([{ n: 2048, m: 2048 }]);
  });

  it('a table appended unchanged reads 16,384-row ranges; an upsert (key=) or a converted column reads 2,048 rows per batch (each row becomes values: 16k-row batches took 314 MB); --batch-size decides when given', async () => {
    await pg.exec('DROP TABLE IF EXISTS bs_src, bs_same, bs_other; CREATE TABLE bs_src (id int PRIMARY KEY, v text); CREATE TABLE bs_same (id int PRIMARY KEY, v text); CREATE TABLE bs_other (id bigint PRIMARY KEY, v text)');
    const plan = async (dst: string) => (await bridge(['copy', pg.url('bs_src'), dst, '--dry-run'])).stdout.match(/batch size (\d+)/)?.[1];
    expect(await plan(pg.url('bs_same', 'columns=auto'))).toBe('16384');
    expect(await plan(pg.url('bs_same', 'columns=auto&key=id'))).toBe('2048');
    expect(await plan(pg.url('bs_other', 'columns=auto'))).toBe('2048');
    expect(await plan(lite.url('bs_x', 'columns=auto&auto_create_table=true'))).toBe('2048');
    expect((await bridge(['copy', pg.url('bs_src'), pg.url('bs_other', 'columns=auto'), '--dry-run', '--batch-size', '500'])).stdout).toMatch(/batch size 500\b/);
    expect(await plan(`file://${path.join(tempDir(), 'bs.ndjson')}`)).toBe('1024');
  });
});
