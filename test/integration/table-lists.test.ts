import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, started, tempDir, waitFor } from '../helpers/bridge.js';
import { allKinds, PG_URL, type TestDb } from '../helpers/databases.js';

/** table=a,b / table=* / table=schema.* on a SQL source: one route per table, a line each, a total, the worst exit code. */
/** Whether any table of a SQLite file another process is writing has a row yet. */
function copiedAny(file: string): boolean {
  if (!existsSync(file)) return false;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.some((t) => db.prepare(`SELECT 1 FROM "${t.name}" LIMIT 1`).get() !== undefined);
  } catch {
    return false; // being created, or locked for a moment
  } finally {
    db.close();
  }
}

describe('many tables per run', () => {
  const dir = tempDir();
  let dbs: TestDb[];
  const db = (k: TestDb['kind']): TestDb => dbs.find((d) => d.kind === k)!;
  const lite = (name: string): string => `sqlite://${path.join(dir, name)}`;

  beforeAll(async () => {
    dbs = await allKinds(path.join(dir, 'unused.db'));
    await db('postgres').exec(`DROP SCHEMA IF EXISTS tl CASCADE; CREATE SCHEMA tl;
      CREATE TABLE tl.alpha (id int PRIMARY KEY, v text); INSERT INTO tl.alpha SELECT g, 'a' || g FROM generate_series(1, 40) g;
      CREATE TABLE tl.beta (id int PRIMARY KEY, n numeric(6,2)); INSERT INTO tl.beta VALUES (1, 1.5), (2, 2.25);
      CREATE TABLE tl.log_2024 (id int PRIMARY KEY); INSERT INTO tl.log_2024 VALUES (1);
      CREATE TABLE tl.log_2025 (id int PRIMARY KEY); INSERT INTO tl.log_2025 VALUES (1), (2);
      CREATE VIEW tl.not_a_table AS SELECT 1 AS id;
      DROP SCHEMA IF EXISTS tl2 CASCADE; CREATE SCHEMA tl2; CREATE TABLE tl2.dupe (id int PRIMARY KEY);
      DROP TABLE IF EXISTS public.dupe; CREATE TABLE public.dupe (id int PRIMARY KEY);
      CREATE TABLE tl.bridge_cursors_alpha (cursor_id text PRIMARY KEY, last_value text, updated_at timestamptz)`);
  }, 60_000);
  afterAll(async () => {
    for (const d of dbs) await d.close();
  });

  it('table=tl.* copies every base table (not views, not bridge checkpoint tables), a line per table and a total', async () => {
    const r = await bridge(['copy', `${PG_URL}?table=tl.*`, `${lite('all.db')}?columns=auto&auto_create_table=true`, '--parallel', '3', '--progress', 'plain']);
    expect(r.exitCode).toBe(0);
    const done = r.stderr.split('\n').filter((l) => / done: /.test(l) && l.includes('['));
    expect(done.map((l) => /\[(.+?)\]: done: (\d+) rows/.exec(l)!.slice(1).join(' ')).sort()).toEqual(['tl.alpha 40', 'tl.beta 2', 'tl.log_2024 1', 'tl.log_2025 2']);
    expect(r.stderr).toMatch(/^bridge copy: 4 tables: 4 done; 45 rows, .* in /m);
  });

  it('--exclude with a pattern, a comma list, and cursor_id kept per table as <cursor_id>.<table>', async () => {
    const r = await bridge(['copy', `${PG_URL}?table=tl.alpha,tl.log_*&cursor_column=id&cursor_id=nightly`, `${lite('some.db')}?columns=auto&auto_create_table=true`, '--exclude', 'log_2024', '-q']);
    expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
    const ids = await db('postgres').rows("SELECT cursor_id FROM tl.bridge_cursors_alpha UNION ALL SELECT cursor_id FROM tl.bridge_cursors_log_2025 ORDER BY 1");
    expect(ids).toEqual([{ cursor_id: 'nightly.alpha' }, { cursor_id: 'nightly.log_2025' }]);
    const none = await db('postgres').rows("SELECT to_regclass('tl.bridge_cursors_log_2024') AS t");
    expect(none).toEqual([{ t: null }]);
  });

  it('a failed table does not hide the others: every table is tried and the exit code is the worst', async () => {
    // beta's target already holds key 1: its batch is rejected (exit 4); the others land.
    const target = lite('fail.db');
    const pre = await bridge(['copy', `${PG_URL}?table=tl.beta`, `${target}?table=beta&columns=auto&auto_create_table=true`, '-q', '--limit', '1']);
    expect(pre.exitCode).toBe(0);
    const r = await bridge(['copy', `${PG_URL}?table=tl.alpha,tl.beta,tl.log_2025`, `${target}?columns=auto&auto_create_table=true`, '--progress', 'plain']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/bridge \[tl\.beta\]: error: message [0-9a-f]{32} was rejected: UNIQUE constraint failed: beta\.id/);
    expect(r.stderr).toMatch(/bridge copy \[tl\.alpha\]: done: 40 rows/);
    expect(r.stderr).toMatch(/bridge copy \[tl\.log_2025\]: done: 2 rows/);
    expect(r.stderr).toMatch(/bridge copy: 3 tables: 2 done, 1 failed \(tl\.beta: exit 4\)/);
  });

  it('mistakes are one line, exit 2, before anything is written', async () => {
    const cases: [string[], RegExp][] = [
      [['copy', `${PG_URL}?table=tl.alpha,tl.nope`, `${lite('x.db')}?columns=auto&auto_create_table=true`], /table tl\.nope \(in the list table=tl\.alpha,tl\.nope\) does not exist in the postgres source/],
      [['copy', `${PG_URL}?table=tl.zzz_*`, `${lite('x.db')}?columns=auto&auto_create_table=true`], /table=tl\.zzz_\* names no table of the postgres source/],
      [['copy', `${PG_URL}?table=tl.*`, `${lite('x.db')}?columns=auto&auto_create_table=true`, '--exclude', '*'], /names no table of the postgres source once --exclude is applied/],
      [['copy', `${PG_URL}?table=tl.alpha`, `${lite('x.db')}?table=a&columns=auto&auto_create_table=true`, '--exclude', 'beta'], /--exclude needs a list of tables in the source/],
      [['copy', `${PG_URL}?table=tl.*`, `${lite('x.db')}?table=one_table&columns=auto&auto_create_table=true`], /the sink's table must be left out \(or be \* or schema\.\*\) when the source names several tables/],
      [['copy', `${PG_URL}?table=tl2.dupe,public.dupe`, `${lite('x.db')}?columns=auto`], /source tables tl2\.dupe and public\.dupe would both be copied into the sink table dupe/],
      [['copy', `${PG_URL}?table=tl.al;pha,beta`, '-'], /table tl\.al;pha \(in the list table=tl\.al;pha,beta\) does not exist in the postgres source/],
      [['copy', `${PG_URL}?table=tl.al"pha,beta`, '-'], /table "al"pha" cannot be named here/],
      [['copy', `file://${dir}/none.ndjson?table=*`, '-'], /table is not a field|a list of tables needs a database source/],
      [['copy', `${PG_URL}?table=tl.*`, `file://${dir}/all.ndjson`], /a list of tables cannot go into one NDJSON file \(each table's copy would rewrite it\)/],
      [['copy', `${PG_URL}?table=tl.*`, '-', '--parallel', '2'], /--parallel with several tables into stdout would interleave their lines/],
      [['tail', `${PG_URL}?table=tl.*&cursor_column=id`, `${lite('t.db')}?columns=auto&auto_create_table=true`, '--parallel', '2'], /--parallel 2 is fewer than the 4 tables to tail: each tail holds its slot until stopped/],
    ];
    for (const [args, want] of cases) {
      const r = await bridge(args);
      expect({ args: args.join(' '), code: r.exitCode, err: r.stderr.trim() }).toEqual({ args: args.join(' '), code: 2, err: expect.stringMatching(want) });
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('tail follows every table of the list at once, each with its own position', async () => {
    const r = await bridge(['tail', `${PG_URL}?table=tl.alpha,tl.beta&cursor_column=id&cursor_id=tails`, `${lite('tails.db')}?columns=auto&auto_create_table=true`, '--exit-when-drained', '--progress', 'none']);
    expect({ code: r.exitCode, lines: r.stderr.trim().split('\n').length }).toEqual({ code: 0, lines: 3 });
    expect(r.stderr).toMatch(/bridge tail \[tl\.alpha\]: done: 40 rows.*checkpoint tails\.alpha in table tl\.bridge_cursors_alpha/);
    expect(r.stderr).toMatch(/bridge tail \[tl\.beta\]: done: 2 rows.*checkpoint tails\.beta in table tl\.bridge_cursors_beta/);
    await db('postgres').exec('INSERT INTO tl.beta VALUES (3, 3.5)');
    const again = await bridge(['tail', `${PG_URL}?table=tl.alpha,tl.beta&cursor_column=id&cursor_id=tails`, `${lite('tails.db')}?columns=auto&auto_create_table=true`, '--exit-when-drained', '--progress', 'none']);
    expect(again.stderr).toMatch(/\[tl\.alpha\]: done: 0 rows/);
    expect(again.stderr).toMatch(/\[tl\.beta\]: done: 1 rows/);
  });

  it('the tables of a list share one dead-letter file: each appends, none rewrites it', async () => {
    const target = lite('dead.db');
    const pre = await bridge(['copy', `${PG_URL}?table=tl.alpha,tl.beta`, `${target}?columns=auto&auto_create_table=true`, '--limit', '1', '-q']);
    expect(pre.exitCode).toBe(0);
    const file = path.join(dir, 'dead.ndjson');
    const r = await bridge(['copy', `${PG_URL}?table=tl.alpha,tl.beta`, `${target}?columns=auto`, '--dead-letter', `file://${file}`, '--progress', 'none']);
    expect(r.exitCode).toBe(0);
    const dead = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { metadata: Record<string, string> });
    expect(dead.map((d) => d.metadata['bridge.error']!.replace(/^.*(UNIQUE constraint failed: \w+\.id).*$/, '$1')).sort()).toEqual(['UNIQUE constraint failed: alpha.id', 'UNIQUE constraint failed: beta.id']);
  });

  it('stopped before every table is copied: the total says so and the exit code is 130, not 0', async () => {
    await db('postgres').exec('DROP TABLE IF EXISTS tl.big1, tl.big2; CREATE TABLE tl.big1 (id int PRIMARY KEY, v text); INSERT INTO tl.big1 SELECT g, repeat(\'x\', 50) FROM generate_series(1, 600000) g; CREATE TABLE tl.big2 (LIKE tl.big1 INCLUDING ALL)');
    const p = spawnBridge(['copy', `${PG_URL}?table=tl.big1,tl.big2`, `${lite('stop.db')}?columns=auto&auto_create_table=true`, '--batch-size', '100', '--progress', 'none']);
    await started(p);
    // Signalled once the first rows of tl.big1 are in: part-way, however fast this machine copies (all of it takes under a second).
    // A run that ended on its own (an error) is not waited on: the assertions below show its stderr.
    await waitFor(async () => p.exitCode !== null || copiedAny(path.join(dir, 'stop.db')), 30_000, 5).catch(() => undefined);
    p.kill('SIGTERM');
    const r = await p;
    await db('postgres').exec('DROP TABLE tl.big1, tl.big2');
    expect(r.stderr).toMatch(/bridge copy: 2 tables: 0 done, 1 stopped part-way \(tl\.big1\), 1 not started \(stopped first: tl\.big2\)/);
    expect(r.exitCode).toBe(130);
  }, 60_000);
});
