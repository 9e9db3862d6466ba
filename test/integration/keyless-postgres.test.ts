import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, lines, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * A PostgreSQL table without a primary key is read by ranges of heap blocks, each one COPY TO:
 * every row arrives once, with dead tuples and emptied blocks between them, into PostgreSQL (the
 * bytes unchanged), SQLite and NDJSON (the values a query returns).
 */
let pg: TestDb;
const SRC = 'keyless_src';
beforeAll(async () => {
  pg = await postgres();
  await pg.exec(`DROP TABLE IF EXISTS ${SRC}, keyless_dst; CREATE TABLE ${SRC} (n int, t text, d numeric(12,3), b bytea, ts timestamptz, j jsonb, f float8)`);
  await pg.exec(`INSERT INTO ${SRC} SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE E'line\\nwith\\ttab \\\\ ' || i END, i / 7.0, decode(md5(i::text), 'hex'), timestamptz '2024-02-29 12:00:00+00' + i * interval '1 second', jsonb_build_object('i', i, 'a', ARRAY[i, -i]), i / 3.0 FROM generate_series(1, 30000) i`);
  // Holes: every third row updated (a new version elsewhere), a run of blocks emptied.
  await pg.exec(`UPDATE ${SRC} SET t = t || ' (updated)' WHERE n % 3 = 0; DELETE FROM ${SRC} WHERE n BETWEEN 5000 AND 12000`);
});
afterAll(async () => {
  await pg.exec(`DROP TABLE IF EXISTS ${SRC}, keyless_dst`);
  await pg.close();
});

const md5 = (s: string): string => createHash('md5').update(s).digest('hex').toUpperCase();
const digest = `SELECT count(*)::int AS n, md5(string_agg(concat_ws('|', n, t, d, encode(b, 'hex'), ts, j, f), '/' ORDER BY n)) AS h FROM`;

describe('a PostgreSQL table without a primary key', () => {
  it('into PostgreSQL: every row once, the same values', async () => {
    await pg.exec(`DROP TABLE IF EXISTS keyless_dst; CREATE TABLE keyless_dst (LIKE ${SRC})`);
    const r = await bridge(['copy', `${PG_URL}?table=${SRC}`, `${PG_URL}?table=keyless_dst&columns=auto`, '--progress', 'plain']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/done: 22,999 rows .* last position block \d+ of \d+/);
    expect(await pg.rows(`${digest} keyless_dst`)).toEqual(await pg.rows(`${digest} ${SRC}`));
  });

  it('into SQLite and NDJSON: the values a query returns', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'k.db');
    const r = await bridge(['copy', `${PG_URL}?table=${SRC}`, `sqlite://${file}?table=k&columns=auto&auto_create_table=true`, '-q']);
    expect(r.exitCode).toBe(0);
    const lite = sqlite(file);
    const rows = await lite.rows(`SELECT n, t, d, hex(b) AS b, j FROM k WHERE n IN (3, 5, 12001, 30000) ORDER BY n`);
    await lite.close();
    expect(rows).toEqual([
      { n: 3n, t: 'line\nwith\ttab \\ 3 (updated)', d: 0.429, b: 'ECCBC87E4B5CE2FE28308FD9F2A7BAF3', j: '{"a": [3, -3], "i": 3}' },
      { n: 5n, t: null, d: 0.714, b: 'E4DA3B7FBBCE2345D7772B0674A318D5', j: '{"a": [5, -5], "i": 5}' },
      { n: 12001n, t: 'line\nwith\ttab \\ 12001', d: 1714.429, b: md5('12001'), j: '{"a": [12001, -12001], "i": 12001}' },
      { n: 30000n, t: null, d: 4285.714, b: md5('30000'), j: '{"a": [30000, -30000], "i": 30000}' },
    ]);
    const nd = await bridge(['copy', `${PG_URL}?table=${SRC}`, '-', '--progress', 'none']);
    const out = lines(nd.stdout).map((l) => JSON.parse(l) as { n: number; t: string | null; ts: string; j: unknown });
    expect(out).toHaveLength(22999);
    expect(new Set(out.map((o) => o.n)).size).toBe(22999);
    expect(out.find((o) => o.n === 3)).toMatchObject({ t: 'line\nwith\ttab \\ 3 (updated)', ts: '2024-02-29 12:00:03+00', j: { i: 3, a: [3, -3] } });
  });
});
