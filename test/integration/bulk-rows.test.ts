import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 15: bulk_copy takes rows of a SQL table without a message per row: a PostgreSQL table's
 * own COPY data when every token names a column whose text is what the token binds (binary when
 * the tokens take the columns in order into columns of the same types), else tokens bound row by
 * row. Whatever the path, the target must hold what the message path (the same rows read from an
 * NDJSON file) writes.
 */
const dir = tempDir();
let pg: TestDb;
let lite: TestDb;
beforeAll(async () => {
  pg = await postgres();
  lite = sqlite(path.join(dir, 'bulk.db'));
});
afterAll(async () => {
  await pg.close();
  await lite.close();
});

const url = (table: string, q: string) => `${PG_URL}?table=${table}&bulk_copy=true&insert_query=${encodeURIComponent(q)}`;
const digest = async (t: string, order = 'id'): Promise<string> => String((await pg.rows(`SELECT count(*) || ':' || md5(string_agg(x::text, E'\\n' ORDER BY ${order})) AS d FROM ${t} x`))[0]!.d);

/** Writes the source through NDJSON (messages) into `table`, the reference for the rows paths. */
async function viaMessages(src: string, table: string, q: string): Promise<void> {
  const file = path.join(dir, `${table}.ndjson`);
  expect((await bridge(['copy', src, `file://${file}`, '-q'])).exitCode).toBe(0);
  const r = await bridge(['copy', `file://${file}`, url(table, q), '-q']);
  expect(r.exitCode, r.stderr).toBe(0);
}

describe('bulk_copy of a table’s rows', () => {
  beforeAll(async () => {
    await pg.exec(`DROP VIEW IF EXISTS br_plain; DROP TABLE IF EXISTS br_src; CREATE TABLE br_src (id bigint PRIMARY KEY, at timestamptz, n int, amount numeric(12,2), ok bool, note text, doc jsonb, f float8, b bytea, u uuid)`);
    await pg.exec(`INSERT INTO br_src SELECT g, timestamptz '2024-01-01 00:00:00.5+00' + g * interval '1.000001 second', g % 1000 - 500, (g % 100000) / 100.0, g % 3 = 0,
      CASE WHEN g % 7 = 0 THEN NULL WHEN g % 7 = 1 THEN '' ELSE E'tab\\there\\nnew\\rline \\\\ back ü 😀 ' || g END,
      CASE WHEN g % 5 = 0 THEN NULL WHEN g % 5 = 1 THEN '5' WHEN g % 5 = 2 THEN '"s"' ELSE jsonb_build_object('g', g, 'x', 30.00) END,
      CASE WHEN g % 4 = 0 THEN 'NaN' WHEN g % 4 = 1 THEN -0.0 ELSE g / 3.0 END, decode(md5(g::text), 'hex'), md5(g::text)::uuid
      FROM generate_series(1, 40000) g`);
  });

  it('every column in order into the same types: the binary COPY data passes through, byte for byte', async () => {
    const q = 'INSERT INTO br_a (id, at, n, amount, ok, note) VALUES (${payload:id}, ${payload:at}::timestamptz, ${payload:n}, ${payload:amount}::numeric, ${payload:ok}, ${payload:note})';
    await pg.exec('DROP TABLE IF EXISTS br_plain_t; CREATE TABLE br_plain_t AS SELECT id, at, n, amount, ok, note FROM br_src; ALTER TABLE br_plain_t ADD PRIMARY KEY (id)');
    await pg.exec('DROP TABLE IF EXISTS br_a; CREATE TABLE br_a (LIKE br_plain_t INCLUDING ALL)');
    const plan = await bridge(['copy', `${PG_URL}?table=br_plain_t`, url('br_a', q), '--dry-run']);
    expect(plan.stdout).toMatch(/ranges read as binary COPY/);
    const r = await bridge(['copy', `${PG_URL}?table=br_plain_t`, url('br_a', q), '--progress', 'plain']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/batch size 16384|done: 40,000 rows/);
    expect(await digest('br_a')).toBe(await digest('br_plain_t'));
  });

  it('tokens in another order, a subset, one naming no column and one into text: COPY text fields picked as they are; the same as the message path', async () => {
    const q = (t: string) => `INSERT INTO ${t} (note, id, amount_text, missing, at) VALUES (\${payload:note}, \${payload:id}, \${payload:amount}, \${payload:nope}, \${payload:at}::timestamptz)`;
    for (const t of ['br_b', 'br_b_ref']) await pg.exec(`DROP TABLE IF EXISTS ${t}; CREATE TABLE ${t} (id bigint PRIMARY KEY, note text, amount_text text, missing text, at timestamptz)`);
    const r = await bridge(['copy', `${PG_URL}?table=br_plain_t`, url('br_b', q('br_b')), '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    await viaMessages(`${PG_URL}?table=br_plain_t`, 'br_b_ref', q('br_b_ref'));
    expect(await digest('br_b')).toBe(await digest('br_b_ref'));
    expect(await pg.rows("SELECT count(*)::int AS n FROM br_b WHERE missing IS NULL AND amount_text ~ '^-?\\d+\\.\\d\\d$'")).toEqual([{ n: 40000 }]);
  });

  it('JSON, float, bytes and uuid columns: tokens bound row by row, the same as the message path (non-scalar JSON binds NULL)', async () => {
    const q = (t: string) => `INSERT INTO ${t} (id, doc, f, b, u, ok) VALUES (\${payload:id}, \${payload:doc}, \${payload:f}, \${payload:b}, \${payload:u}, \${payload:ok})`;
    for (const t of ['br_c', 'br_c_ref']) await pg.exec(`DROP TABLE IF EXISTS ${t}; CREATE TABLE ${t} (id bigint PRIMARY KEY, doc text, f text, b text, u uuid, ok text)`);
    const r = await bridge(['copy', `${PG_URL}?table=br_src`, url('br_c', q('br_c')), '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    await viaMessages(`${PG_URL}?table=br_src`, 'br_c_ref', q('br_c_ref'));
    expect(await digest('br_c')).toBe(await digest('br_c_ref'));
    expect(await pg.rows('SELECT count(*) FILTER (WHERE doc IS NULL)::int AS nulls, count(*) FILTER (WHERE doc = \'5\')::int AS fives FROM br_c')).toEqual([{ nulls: 24000, fives: 8000 }]);
  });

  it('SQLite rows: tokens bound row by row, the same as the message path', async () => {
    await lite.exec("DROP TABLE IF EXISTS br_lite; CREATE TABLE br_lite (id INTEGER PRIMARY KEY, at TEXT, v REAL, s TEXT, j TEXT)");
    await lite.exec("WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 20000) INSERT INTO br_lite SELECT i, '2024-01-01 00:00:0' || (i % 10) || '.25', i / 8.0, CASE WHEN i % 9 = 0 THEN NULL ELSE 'é\t' || i END, '{\"k\":' || i || '}' FROM g");
    const q = (t: string) => `INSERT INTO ${t} (id, at, v, s, j) VALUES (\${payload:id}, \${payload:at}::timestamptz, \${payload:v}, \${payload:s}, \${payload:j})`;
    for (const t of ['br_d', 'br_d_ref']) await pg.exec(`DROP TABLE IF EXISTS ${t}; CREATE TABLE ${t} (id bigint PRIMARY KEY, at timestamptz, v float8, s text, j text)`);
    const r = await bridge(['copy', lite.url('br_lite'), url('br_d', q('br_d')), '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    await viaMessages(lite.url('br_lite'), 'br_d_ref', q('br_d_ref'));
    expect(await digest('br_d')).toBe(await digest('br_d_ref'));
    expect((await pg.rows('SELECT count(*)::int AS n FROM br_d'))[0]).toEqual({ n: 20000 });
  });
});
