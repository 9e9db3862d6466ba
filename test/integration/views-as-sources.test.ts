import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { MARIADB_URL, mysqlLike, PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Relations without a key and without rows of their own: a PostgreSQL view was read by ranges of
 * its heap blocks, of which it has none, and copied as "done: 0 rows" (exit 0); so was a
 * partitioned table without a key (its rows are in its partitions). A SQLite view failed with "no
 * such column: rowid". Each is now read whole, by one statement, and lands equal.
 */
const dir = tempDir();
const file = path.join(dir, 'views.db');
let pg: TestDb;
let my: TestDb;
let lite: TestDb;
const text = (rows: Record<string, unknown>[]) => rows.map((r) => `${String(r.id)}|${String(r.v)}`).sort();

beforeAll(async () => {
  pg = await postgres();
  my = await mysqlLike('mariadb');
  lite = sqlite(file);
  await pg.exec(`DROP VIEW IF EXISTS vs_view; DROP TABLE IF EXISTS vs_base, vs_parts, vs_out_view, vs_out_parts, vs_out_my, vs_out_lite`);
  await pg.exec(`CREATE TABLE vs_base (id int PRIMARY KEY, v text); INSERT INTO vs_base SELECT g, 'v' || g FROM generate_series(1, 5000) g`);
  await pg.exec(`CREATE VIEW vs_view AS SELECT id, upper(v) AS v FROM vs_base WHERE id % 2 = 0`);
  await pg.exec(`CREATE TABLE vs_parts (id int, at date NOT NULL, v text) PARTITION BY RANGE (at)`);
  await pg.exec(`CREATE TABLE vs_parts_a PARTITION OF vs_parts FOR VALUES FROM ('2024-01-01') TO ('2025-01-01'); CREATE TABLE vs_parts_b PARTITION OF vs_parts FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')`);
  await pg.exec(`INSERT INTO vs_parts SELECT g, DATE '2024-06-01' + (g % 400), 'p' || g FROM generate_series(1, 3000) g`);
  await my.exec('DROP VIEW IF EXISTS vs_my_view; DROP TABLE IF EXISTS vs_my_base');
  await my.exec("CREATE TABLE vs_my_base (id int PRIMARY KEY, v text); INSERT INTO vs_my_base SELECT seq, concat('m', seq) FROM seq_1_to_3000");
  await my.exec("CREATE VIEW vs_my_view AS SELECT id, concat(v, '!') AS v FROM vs_my_base WHERE id > 1000");
  await lite.exec("CREATE TABLE base (id INTEGER PRIMARY KEY, v TEXT); WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 4000) INSERT INTO base SELECT i, 's' || i FROM g");
  await lite.exec("CREATE VIEW lite_view AS SELECT id, v || '?' AS v FROM base WHERE id % 4 = 0");
  await lite.exec('CREATE TABLE gone (id INTEGER PRIMARY KEY, v TEXT); CREATE VIEW broken_view AS SELECT id, v FROM gone; DROP TABLE gone');
});
afterAll(async () => {
  await pg.exec(`DROP VIEW IF EXISTS vs_view; DROP TABLE IF EXISTS vs_base, vs_parts, vs_out_view, vs_out_parts, vs_out_my, vs_out_lite`).catch(() => {});
  await my.exec('DROP VIEW IF EXISTS vs_my_view; DROP TABLE IF EXISTS vs_my_base').catch(() => {});
  await pg.close();
  await my.close();
  await lite.close();
});

async function copied(src: string, out: string): Promise<string[]> {
  const r = await bridge(['copy', src, `${PG_URL}?table=${out}&columns=auto&auto_create_table=true`, '--batch-size', '700', '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(0);
  return text(await pg.rows(`SELECT id, v FROM ${out}`));
}

describe('views and partitioned tables without a key, as sources', () => {
  it('a PostgreSQL view: every row it shows', async () => {
    const want = text(await pg.rows('SELECT id, v FROM vs_view'));
    expect(want).toHaveLength(2500);
    expect(await copied(`${PG_URL}?table=vs_view`, 'vs_out_view')).toEqual(want);
    const nd = await bridge(['copy', `${PG_URL}?table=vs_view`, '-', '--progress', 'none']);
    expect(nd.stdout.trim().split('\n')).toHaveLength(2500);
  });

  it('a PostgreSQL partitioned table without a key: the rows of every partition', async () => {
    const want = text(await pg.rows('SELECT id, v FROM vs_parts'));
    expect(want).toHaveLength(3000);
    expect(await copied(`${PG_URL}?table=vs_parts`, 'vs_out_parts')).toEqual(want);
  });

  it('a MariaDB view', async () => {
    const want = text(await my.rows('SELECT id, v FROM vs_my_view'));
    expect(want).toHaveLength(2000);
    expect(await copied(`${MARIADB_URL}?table=vs_my_view`, 'vs_out_my')).toEqual(want);
  });

  it('a SQLite view (named in another case, as SQLite matches names)', async () => {
    const want = text(await lite.rows('SELECT id, v FROM lite_view'));
    expect(want).toHaveLength(1000);
    expect(await copied(`sqlite://${file}?table=Lite_View`, 'vs_out_lite')).toEqual(want);
  });

  it('a SQLite view over a table since dropped: the error SQLite gives, not "a bug"', async () => {
    const r = await bridge(['copy', `sqlite://${file}?table=broken_view`, '-', '--progress', 'none']);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/no such table: (main\.)?gone/);
    expect(r.stderr).not.toMatch(/bug/);
  });

  it('a SQLite view copied into a table of its own file in rollback-journal mode: every row (the reader held the lock its own sink waited for)', async () => {
    const own = path.join(dir, 'journal.db');
    const j = sqlite(own);
    await j.exec("PRAGMA journal_mode = DELETE; CREATE TABLE base (id INTEGER PRIMARY KEY, v TEXT); WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 5000) INSERT INTO base SELECT i, 's' || i FROM g; CREATE VIEW even AS SELECT id, v FROM base WHERE id % 2 = 0");
    await j.close();
    const r = await bridge(['copy', `sqlite://${own}?table=even`, `sqlite://${own}?table=even_copy&columns=auto&auto_create_table=true`, '--batch-size', '700', '--max-retries', '2', '--progress', 'none'], { timeout: 30_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const back = sqlite(own);
    try {
      expect(text(await back.rows('SELECT id, v FROM even_copy'))).toEqual(text(await back.rows('SELECT id, v FROM even')));
      expect(await back.rows('SELECT count(*) AS n FROM even_copy')).toEqual([{ n: 2500n }]);
    } finally {
      await back.close();
    }
  }, 40_000);

  it('a SQLite table without a key whose own column is named rowid (it hides the real one): every row, not one page', async () => {
    const f = path.join(dir, 'rowid.db');
    const t = sqlite(f);
    await t.exec("CREATE TABLE r (rowid TEXT, v TEXT); WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 3000) INSERT INTO r SELECT 'x', 'v' || i FROM g");
    await t.close();
    const r = await bridge(['copy', `sqlite://${f}?table=r`, '-', '--batch-size', '500', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(new Set(r.stdout.trim().split('\n')).size).toBe(3000);
  });
});
