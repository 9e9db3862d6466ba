import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * PostgreSQL ranges are read as COPY TO streams that arrive in the driver's chunks (mostly 8 KB),
 * cut into batches where they arrive and copied into pooled 256 KB buffers. A table with an enum
 * column is read as COPY text (an extension's or enum's binary form may differ between
 * databases), so its rows cross chunk and buffer boundaries as text lines: passed through into
 * PostgreSQL, and parsed for SQLite. Rows of many sizes, escapes and a 300 KB value (longer than
 * one pooled buffer) must land byte for byte.
 */
const dir = tempDir();
let pgdb: TestDb;
let lite: TestDb;
const N = 30_000;
const BIG = 17_777;

beforeAll(async () => {
  pgdb = await postgres();
  lite = sqlite(path.join(dir, 'chunks.db'));
  await pgdb.exec(`DROP TABLE IF EXISTS oc_src, oc_dst; DROP TYPE IF EXISTS oc_mood;
    CREATE TYPE oc_mood AS ENUM ('calm', 'tab\tbed', 'é😀');
    CREATE TABLE oc_src (id bigint PRIMARY KEY, mood oc_mood, note text);
    INSERT INTO oc_src SELECT g, (enum_range(NULL::oc_mood))[1 + g % 3],
      CASE WHEN g % 7 = 0 THEN NULL WHEN g = ${BIG} THEN repeat('x\\y', 100000) ELSE repeat(E'é\\t\\n\\\\' || g, 1 + g % 40) END
      FROM generate_series(1, ${N}) g;
    CREATE TABLE oc_dst (LIKE oc_src INCLUDING ALL)`);
});
afterAll(async () => {
  await pgdb.exec('DROP TABLE IF EXISTS oc_src, oc_dst; DROP TYPE IF EXISTS oc_mood');
  for (const d of [pgdb, lite]) await d.close();
});

describe('COPY text rows across the driver chunks and the pooled buffers', () => {
  it('pass through into PostgreSQL byte for byte', async () => {
    // The plan says how ranges are read: as text here (a table of built-in types says "binary COPY").
    const plan = await bridge(['copy', pgdb.url('oc_src'), pgdb.url('oc_dst', 'columns=auto'), '--dry-run']);
    expect(String(plan.stdout) + String(plan.stderr)).toMatch(/source mode: snapshot, every row as a JSON object, paged by id\n/);
    const r = await bridge(['copy', pgdb.url('oc_src'), pgdb.url('oc_dst', 'columns=auto'), '--progress', 'plain']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const digest = "SELECT count(*) || md5(string_agg(t::text, E'\\n' ORDER BY id)) AS d FROM ";
    expect(await pgdb.rows(`${digest} oc_dst t`)).toEqual(await pgdb.rows(`${digest} oc_src t`));
  });

  it('parse into SQLite value for value', async () => {
    await lite.exec('DROP TABLE IF EXISTS oc_dst; CREATE TABLE oc_dst (id INTEGER PRIMARY KEY, mood TEXT, note TEXT)');
    const r = await bridge(['copy', pgdb.url('oc_src'), lite.url('oc_dst', 'columns=auto'), '--progress', 'plain']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const want = await pgdb.rows('SELECT id::text AS id, mood::text AS mood, note FROM oc_src ORDER BY oc_src.id');
    const got = (await lite.rows('SELECT id, mood, note FROM oc_dst ORDER BY id')).map((x) => ({ ...x, id: String(x.id) }));
    expect(got.length).toBe(N);
    expect(got.find((x) => x.id === String(BIG))?.note).toBe('x\\y'.repeat(100000));
    expect(got).toEqual(want);
  });
});
