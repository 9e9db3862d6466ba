import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir, writeNdjson } from '../helpers/bridge.js';
import { allKinds, PG_URL, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
let dbs: TestDb[];
let pg: TestDb;
beforeAll(async () => {
  dbs = await allKinds(path.join(dir, 'lookup.db'));
  pg = dbs[0]!;
});
afterAll(async () => {
  for (const db of dbs) await db.close();
});

const ndjson = (name: string, rows: unknown[]): string => writeNdjson(dir, name, rows);

const COPY_Q = 'INSERT INTO t_bulk (id, at, amount, note) VALUES (${payload:id}, ${payload:at}::timestamptz, ${payload:amount}::numeric, ${payload:note})';
const INSERT_Q = COPY_Q.replace('t_bulk', 't_bulk_ins');
const bulkUrl = (q = COPY_Q, extra = '') => `${PG_URL}?table=t_bulk&bulk_copy=true&insert_query=${encodeURIComponent(q)}${extra}`;
const digest = async (t: string): Promise<string> =>
  String((await pg.rows(`SELECT md5(string_agg(x::text, E'\\n' ORDER BY id)) AS d FROM ${t} x`))[0]!.d);

describe('bulk_copy (PostgreSQL COPY FROM STDIN)', () => {
  beforeAll(async () => {
    await pg.exec('DROP TABLE IF EXISTS t_bulk; CREATE TABLE t_bulk (id bigint PRIMARY KEY, at timestamptz, amount numeric(12,2), note text)');
    await pg.exec('DROP TABLE IF EXISTS t_bulk_ins; CREATE TABLE t_bulk_ins (LIKE t_bulk INCLUDING ALL)');
    await pg.exec('DROP TABLE IF EXISTS t_bulk_src');
    // Every awkward text: tabs, newlines, CR, backslashes, unicode, empty strings and NULLs.
    await pg.exec(`CREATE TABLE t_bulk_src AS SELECT g::bigint AS id, timestamptz '2024-01-01' + g * interval '1.000001 second' AS at, ((g % 100000) / 100.0)::numeric(12,2) AS amount,
      CASE WHEN g % 7 = 0 THEN NULL WHEN g % 7 = 1 THEN '' ELSE E'tab\\there\\nnew\\rline \\\\ back ü 😀 ' || g END AS note
      FROM generate_series(1, ${process.env.BRIDGE_TEST_BULK_ROWS ?? 1_000_000}) g`);
  });

  it('1M rows arrive byte-identical to the plain INSERT path', async () => {
    const copy = await bridge(['copy', `${PG_URL}?table=t_bulk_src`, bulkUrl(), '-q']);
    expect(copy.stderr).toBe('');
    expect(copy.exitCode).toBe(0);
    const ins = await bridge(['copy', `${PG_URL}?table=t_bulk_src`, `${PG_URL}?table=t_bulk_ins&insert_query=${encodeURIComponent(INSERT_Q)}`, '-q']);
    expect(ins.exitCode).toBe(0);
    expect(await digest('t_bulk')).toBe(await digest('t_bulk_ins'));
    expect(await digest('t_bulk')).toBe(await digest('t_bulk_src'));
    const nulls = await pg.rows("SELECT count(*) FILTER (WHERE note IS NULL)::int AS nulls, count(*) FILTER (WHERE note = '')::int AS empty FROM t_bulk");
    expect(nulls[0]!.nulls).toBeGreaterThan(0);
    expect(nulls[0]!.empty).toBeGreaterThan(0);
  }, 300_000);

  it('a NUL byte is a clear per-message rejection', async () => {
    await pg.exec('TRUNCATE t_bulk');
    const src = ndjson('nul.ndjson', [{ id: 1, note: 'ok' }, { id: 2, note: 'bad\u0000byte' }]);
    const r = await bridge(['copy', src, bulkUrl()]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/message [0-9a-f]{32} holds a NUL byte/);
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_bulk')).toEqual([{ n: 0 }]);
  });

  it('a bad row rolls back only its batch; with --dead-letter it lands there and the rest is loaded', async () => {
    await pg.exec('TRUNCATE t_bulk');
    const rows = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, amount: i === 42 ? 'not a number' : `${i}.5` }));
    const src = ndjson('bad.ndjson', rows);
    const failed = await bridge(['copy', src, bulkUrl(), '--batch-size', '25']);
    expect(failed.exitCode).toBe(4);
    expect(failed.stderr).toMatch(/message [0-9a-f]{32} was rejected: field amount: invalid input syntax for type numeric: "not a number"/);
    // The first batch (rows 1–25) was confirmed; the failed batch (26–50) left nothing behind.
    // (COPY batches load two at a time, so the batch after the failed one may have landed too.)
    expect(await pg.rows('SELECT count(*) FILTER (WHERE id <= 25)::int AS first, count(*) FILTER (WHERE id BETWEEN 26 AND 50)::int AS failed FROM t_bulk')).toEqual([{ first: 25, failed: 0 }]);

    await pg.exec('TRUNCATE t_bulk');
    const rejects = path.join(dir, 'rejects.ndjson');
    const ok = await bridge(['copy', src, bulkUrl(), '--batch-size', '25', '--dead-letter', `file://${rejects}`]);
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr).toMatch(/99 rows .*1 dead-lettered/);
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_bulk')).toEqual([{ n: 99 }]);
    const dead = parseLines(readFileSync(rejects, 'utf8')) as { id: string; metadata: Record<string, string>; payload: { id: number } }[];
    expect(dead).toHaveLength(1);
    expect(dead[0]!.payload.id).toBe(43);
    expect(dead[0]!.metadata['bridge.error']).toMatch(/invalid input syntax for type numeric/);
  });

  it('every bulk_copy rule is a config error', async () => {
    const cases: [string, RegExp][] = [
      [`${PG_URL}?table=t_bulk&bulk_copy=true`, /bulk_copy needs an insert_query with \$\{payload:…\} tokens/],
      [bulkUrl('INSERT INTO t_bulk (id) VALUES (?)'), /bulk_copy needs an insert_query with \$\{payload:…\} tokens/],
      [bulkUrl(COPY_Q + ' ON CONFLICT (id) DO NOTHING'), /ON CONFLICT/],
      [bulkUrl(COPY_Q + ' RETURNING id'), /RETURNING/],
      [bulkUrl('INSERT INTO t_bulk (id, note) VALUES (${payload:id}, upper(${payload:note}))'), /each value must be a token/],
      [bulkUrl(COPY_Q, '&key=id'), /key needs columns=auto/],
      [`mysql://root@127.0.0.1/test?table=t&bulk_copy=true&insert_query=${encodeURIComponent(COPY_Q)}`, /bulk_copy is not supported on mysql/],
    ];
    for (const [url, msg] of cases) {
      const r = await bridge(['copy', '-', url], { input: '' });
      expect({ url, code: r.exitCode }).toEqual({ url, code: 2 });
      expect(r.stderr).toMatch(msg);
    }
  });
});

describe('dead letters on the INSERT path', () => {
  it('a constraint violation without --dead-letter exits 4 naming the message and the database error, keeping nothing of the batch', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_dl; CREATE TABLE t_dl (id int PRIMARY KEY, v text NOT NULL)');
    const src = ndjson('dl.ndjson', [{ id: 1, v: 'a' }, { id: 2 }, { id: 3, v: 'c' }]);
    const r = await bridge(['copy', src, `${PG_URL}?table=t_dl&columns=auto`]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/message [0-9a-f]{32} was rejected: null value in column "v" of relation "t_dl" violates not-null constraint/);
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_dl')).toEqual([{ n: 0 }]);
  });
});

const LOOKUP_DDL: Record<TestDb['kind'], string> = {
  postgres: 'CREATE TABLE t_users (id int PRIMARY KEY, name text, score numeric(5,1))',
  mysql: 'CREATE TABLE t_users (id int PRIMARY KEY, name varchar(20), score decimal(5,1))',
  mariadb: 'CREATE TABLE t_users (id int PRIMARY KEY, name varchar(20), score decimal(5,1))',
  sqlite: 'CREATE TABLE t_users (id INTEGER PRIMARY KEY, name TEXT, score DECIMAL(5,1))',
};

describe('lookup_query', () => {
  for (const kind of ['postgres', 'mariadb', 'sqlite'] as const) {
    it(`${kind}: answers each message with the first row, per message and per batch with IN`, async () => {
      const db = dbs.find((d) => d.kind === kind)!;
      await db.exec('DROP TABLE IF EXISTS t_users');
      await db.exec(LOOKUP_DDL[kind]);
      await db.exec("INSERT INTO t_users VALUES (1, 'ann', 9.5), (2, 'bob', 7.0)");
      const src = ndjson(`ids-${kind}.ndjson`, [{ id: 2 }, { id: 9 }, { id: 1 }, { nope: true }]);
      const expected = ['{"id":2,"name":"bob","score":"7.0"}', 'null', '{"id":1,"name":"ann","score":"9.5"}', 'null'];
      for (const q of ['SELECT * FROM t_users WHERE id IN (${payload:id})', 'SELECT * FROM t_users WHERE id = ${payload:id}']) {
        const out = path.join(dir, `answers-${kind}.ndjson`);
        const r = await bridge(['copy', src, db.url('t_users', `lookup_query=${encodeURIComponent(q)}`), `file://${out}?format=envelope`, '-q']);
        expect(r.stderr).toBe('');
        const answers = parseLines(readFileSync(out, 'utf8')) as { metadata: Record<string, string>; payload: unknown }[];
        expect(answers.map((a) => JSON.stringify(a.payload))).toEqual(expected);
        expect(answers.map((a) => a.metadata['bridge.lookup'])).toEqual(['found', 'not_found', 'found', 'not_found']);
      }
    });
  }

  it('needs a reply endpoint', async () => {
    const r = await bridge(['copy', '-', `${PG_URL}?table=t_users&lookup_query=SELECT 1`], { input: '' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/give a third endpoint for the answers/);
  });
});
