import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, readWholeLines, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { mysqlLike, PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/** Issue 12: change capture that is safe for the user's database, with stable ids, and that can mirror a table. */
const dir = tempDir();
let pg: TestDb;
let my: TestDb;
let lite: TestDb;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dropSlot = (slot: string) => pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}' AND NOT active`);

/**
 * `<name>_src` (columns `cols`) and its mirror `<name>_m` (`mirrorCols`) in the test database, and a
 * new slot `<name>_slot` made by a first run (snapshot=never: only what comes after is streamed).
 */
async function slotPair(name: string, cols: string, mirrorCols: string): Promise<{ src: string; dst: string; done: () => Promise<void> }> {
  await pg.exec(`DROP PUBLICATION IF EXISTS ${name}_slot; DROP TABLE IF EXISTS ${name}_src, ${name}_m; CREATE TABLE ${name}_src (${cols}); CREATE TABLE ${name}_m (${mirrorCols})`);
  await dropSlot(`${name}_slot`);
  const src = `postgres+cdc://${PG_URL.replace(/^postgres:\/\//, '')}?tables=${name}_src&slot_name=${name}_slot&snapshot=never`;
  const dst = `${PG_URL}?table=${name}_m&columns=auto&key=id`;
  expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
  return { src, dst, done: async () => (await dropSlot(`${name}_slot`), await pg.exec(`DROP PUBLICATION ${name}_slot`)) };
}

beforeAll(async () => {
  pg = await postgres();
  my = await mysqlLike('mariadb');
  lite = sqlite(path.join(dir, 'mirror.db'));
});
afterAll(async () => {
  for (const s of ['m_slot_postgres', 'm_slot_mariadb', 'm_slot_sqlite', 'ids_slot', 'kept_slot']) await dropSlot(s);
  for (const d of [pg, my, lite]) await d.close();
});

describe('change capture is safe for the database it reads', () => {
  it("create_publication on a table without a primary key is refused, and the application's UPDATE and DELETE keep working", async () => {
    await pg.exec("DROP PUBLICATION IF EXISTS nopk_pub; DROP TABLE IF EXISTS t_nopk; CREATE TABLE t_nopk (a int, b text); INSERT INTO t_nopk VALUES (1, 'x')");
    const r = await bridge(['tail', `${PG_URL}?table=t_nopk&publication=nopk_pub&create_publication=true&slot_name=nopk_slot`, '-']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/t_nopk has no primary key or replica identity: .* Add a primary key, or run ALTER TABLE t_nopk REPLICA IDENTITY FULL, or publish inserts only: CREATE PUBLICATION nopk_pub FOR TABLE t_nopk WITH \(publish = 'insert'\)/);
    expect(await pg.rows("SELECT 1 FROM pg_publication WHERE pubname = 'nopk_pub'")).toEqual([]);
    await pg.exec("UPDATE t_nopk SET b = 'y' WHERE a = 1; DELETE FROM t_nopk WHERE a = 1");
  });

  it('a slot created before its publication: the error says so and how to fix it', async () => {
    await pg.exec("DROP PUBLICATION IF EXISTS early_pub; DROP TABLE IF EXISTS t_early; CREATE TABLE t_early (id int PRIMARY KEY, v text)");
    await dropSlot('early_slot');
    await pg.exec("SELECT pg_create_logical_replication_slot('early_slot', 'pgoutput'); INSERT INTO t_early VALUES (1, 'before'); CREATE PUBLICATION early_pub FOR TABLE t_early; INSERT INTO t_early VALUES (2, 'after')");
    const r = await bridge(['copy', `${PG_URL}?table=t_early&publication=early_pub&slot_name=early_slot`, '-']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('replication slot early_slot was created before publication early_pub');
    expect(r.stderr).toContain('bridge slots drop early_slot');
    await dropSlot('early_slot');
  });

  it('a change delivered again after a restart has the same id (commit LSN and place in the transaction)', async () => {
    await pg.exec('DROP PUBLICATION IF EXISTS ids_pub; DROP TABLE IF EXISTS t_ids; CREATE TABLE t_ids (id int PRIMARY KEY, v text)');
    await dropSlot('ids_slot');
    const url = `${PG_URL}?table=t_ids&publication=ids_pub&slot_name=ids_slot&create_publication=true`;
    // Creates the publication and the slot, and stops (nothing to stream yet).
    expect((await bridge(['copy', url, '-'])).exitCode).toBe(0);
    await pg.exec(`INSERT INTO t_ids SELECT g, 'v' || g FROM generate_series(1, 10) g`);
    // --limit stops inside the 10-change transaction: its commit is not confirmed, so it streams again.
    const first = await bridge(['copy', url, '-', '--dst-opt', 'format=envelope', '--limit', '4', '--batch-size', '4', '-q']);
    const second = await bridge(['copy', url, '-', '--dst-opt', 'format=envelope', '-q']);
    const ids = (out: string) => (parseLines(out) as { id: string; payload: { id: number } }[]).map((e) => `${e.payload.id}:${e.id}`);
    expect(ids(first.stdout)).toHaveLength(4);
    expect(ids(second.stdout).slice(0, 4)).toEqual(ids(first.stdout));
    expect(new Set(ids(second.stdout)).size).toBe(10);
  });

  it('a stopped tail says its slot remains and the WAL it holds; bridge slots lists it and drops it', async () => {
    await pg.exec('DROP PUBLICATION IF EXISTS kept_pub; DROP TABLE IF EXISTS t_kept; CREATE TABLE t_kept (id int PRIMARY KEY)');
    await dropSlot('kept_slot');
    const r = await bridge(['copy', `${PG_URL}?table=t_kept&publication=kept_pub&slot_name=kept_slot&create_publication=true`, '-']);
    expect(r.stderr).toMatch(/replication slot kept_slot remains \(it holds [\d.]+ (bytes|kB|MB) of WAL until a tail resumes from it\); when you no longer need it: bridge slots drop kept_slot <url>/);
    const list = await bridge(['slots', PG_URL, '--format', 'json']);
    expect(list.exitCode).toBe(0);
    expect(parseLines(list.stdout)).toContainEqual(expect.objectContaining({ slot_name: 'kept_slot', active_pid: null, plugin: 'pgoutput', temporary: false }));
    const drop = await bridge(['slots', 'drop', 'kept_slot', PG_URL]);
    expect(drop.exitCode).toBe(0);
    expect(await pg.rows("SELECT 1 FROM pg_replication_slots WHERE slot_name = 'kept_slot'")).toEqual([]);
    expect((await bridge(['slots', 'drop', 'kept_slot', PG_URL])).exitCode).toBe(2);
  });

  it('a mirror takes changes 4,096 to a batch (one transaction each), other sinks 1,024; --batch-size decides when given; the dry run creates no slot', async () => {
    await pg.exec('DROP TABLE IF EXISTS bs_cdc; CREATE TABLE bs_cdc (id int PRIMARY KEY, v text)');
    const src = `postgres+cdc://${PG_URL.replace(/^postgres:\/\//, '')}?tables=bs_cdc&slot_name=bs_plan_slot`;
    const plan = async (...args: string[]) => (await bridge(['tail', src, ...args, '--dry-run'])).stdout.match(/batch size (\d+)/)?.[1];
    expect(await plan(`${PG_URL}?columns=auto&auto_create_table=true`)).toBe('4096');
    expect(await plan(lite.url('bs_cdc', 'columns=auto&auto_create_table=true'))).toBe('4096');
    expect(await plan(`${PG_URL}?columns=auto&auto_create_table=true`, '--batch-size', '300')).toBe('300');
    expect(await plan('-')).toBe('1024');
    expect(await pg.rows("SELECT slot_name FROM pg_replication_slots WHERE slot_name = 'bs_plan_slot'")).toEqual([]);
    // The initial copy's rows stay 1,024 to a batch (a whole table held as messages 4,096 at a time took half as much memory again).
    await pg.exec("INSERT INTO bs_cdc SELECT g, 'v' || g FROM generate_series(1, 5000) g");
    const r = await bridge(['copy', src.replace('slot_name=bs_plan_slot', 'snapshot=only'), lite.url('bs_cdc', 'columns=auto&auto_create_table=true'), '--progress', 'json']);
    expect(r.exitCode).toBe(0);
    expect(parseLines(r.stderr).find((l) => l.type === 'summary')).toMatchObject({ rows: 5000, batches: 5 });
    expect(await lite.rows('SELECT count(*) AS n, sum(id) AS s FROM bs_cdc')).toEqual([{ n: 5000n, s: 12502500n }]);
  });

  it('a batch of four 1,000-row transactions with one value the mirror refuses: exit 4 naming the constraint; then with a dead letter the other 3,999 land, and a third run has nothing left', async () => {
    const { src, dst, done } = await slotPair('rf', 'id int PRIMARY KEY, n int NOT NULL', 'id int PRIMARY KEY, n int NOT NULL CHECK (n < 1000000)');
    for (let t = 0; t < 4; t++) await pg.exec(`INSERT INTO rf_src SELECT g, CASE WHEN g = 2500 THEN 1000000 ELSE g END FROM generate_series(${t * 1000 + 1}, ${t * 1000 + 1000}) g`);
    const first = await bridge(['copy', src, dst, '--progress', 'none']);
    expect(first.exitCode, first.stderr).toBe(4);
    expect(first.stderr).toContain('rf_m_n_check');
    expect(await pg.rows('SELECT id FROM rf_m WHERE id = 2500')).toEqual([]);
    const dead = path.join(dir, 'rf-dead.ndjson');
    const second = await bridge(['copy', src, dst, '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(second.exitCode, second.stderr).toBe(0);
    expect((readWholeLines(dead) as { payload: { id: number } }[]).map((l) => l.payload.id)).toEqual([2500]);
    expect(await pg.rows('SELECT count(*)::int AS n, sum(id)::int AS s FROM rf_m')).toEqual([{ n: 3999, s: 8002000 - 2500 }]);
    const again = path.join(dir, 'rf-again.ndjson');
    const third = await bridge(['copy', src, dst, '--dead-letter', `file://${again}`, '--progress', 'json']);
    expect(third.exitCode, third.stderr).toBe(0);
    expect(parseLines(third.stderr).find((l) => l.type === 'summary')).toMatchObject({ rows: 0 });
    await done();
  });

  it('one batch of 300 inserts, a truncate, 300 other inserts and 10 deletes: the mirror holds the last 290 rows and nothing of the first 300', async () => {
    const { src, dst, done } = await slotPair('seg', 'id int PRIMARY KEY, v text NOT NULL', 'id int PRIMARY KEY, v text NOT NULL');
    // One source transaction, so one batch: two segments of upserts around a truncate, then deletes.
    await pg.exec("INSERT INTO seg_src SELECT g, 'a' || g FROM generate_series(1, 300) g; TRUNCATE seg_src; INSERT INTO seg_src SELECT g, 'b' || g FROM generate_series(1001, 1300) g; DELETE FROM seg_src WHERE id <= 1010");
    const r = await bridge(['copy', src, dst, '--progress', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseLines(r.stderr).find((l) => l.type === 'summary')).toMatchObject({ batches: 1 });
    const content = 'SELECT count(*)::int AS n, min(id) AS lo, max(id) AS hi, string_agg(v, \',\' ORDER BY id) AS v FROM';
    expect(await pg.rows(`${content} seg_m`)).toEqual(await pg.rows(`${content} seg_src`));
    expect(await pg.rows('SELECT count(*)::int AS n FROM seg_m')).toEqual([{ n: 290 }]);
    await done();
  });

  it('one batch of 400 updates and 40 deletes of text keys holding tabs, backslashes and newlines, interleaved, one key deleted then inserted again: the mirror equals the source', async () => {
    const { src, dst, done } = await slotPair('dk', 'id text PRIMARY KEY, n int NOT NULL', 'id text PRIMARY KEY, n int NOT NULL');
    const keys = "E'k\\t' || g || E'\\\\x\\n'";
    await pg.exec(`INSERT INTO dk_src SELECT ${keys}, g FROM generate_series(1, 1000) g`);
    expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
    await pg.exec(`DO $$ BEGIN FOR g IN 1..440 LOOP IF g % 11 = 0 THEN DELETE FROM dk_src WHERE id = ${keys}; ELSE UPDATE dk_src SET n = -g WHERE id = ${keys}; END IF; END LOOP; END $$; INSERT INTO dk_src VALUES (E'k\\t22\\\\x\\n', 22022)`);
    const r = await bridge(['copy', src, dst, '--progress', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parseLines(r.stderr).find((l) => l.type === 'summary')).toMatchObject({ batches: 1 });
    const content = "SELECT count(*)::int AS n, sum(n)::int AS s, md5(string_agg(id || ':' || n, ',' ORDER BY id)) AS h FROM";
    expect(await pg.rows(`${content} dk_m`)).toEqual(await pg.rows(`${content} dk_src`));
    expect(await pg.rows(`${content} dk_m`)).toMatchObject([{ n: 961 }]);
    expect(await pg.rows("SELECT n FROM dk_m WHERE id = E'k\\t22\\\\x\\n'")).toEqual([{ n: 22022 }]);
    await done();
  });

  it('deletes and updates in one batch into a mirror keyed by two columns, one of them named bridge_delete in another mirror: both equal the source', async () => {
    for (const [name, extra] of [['dc', ''], ['df', ', bridge_delete boolean']] as const) {
      await pg.exec(`DROP PUBLICATION IF EXISTS ${name}_slot; DROP TABLE IF EXISTS ${name}_src, ${name}_m; CREATE TABLE ${name}_src (a int, b text, n int${extra}, PRIMARY KEY (a, b)); CREATE TABLE ${name}_m (a int, b text, n int${extra}, PRIMARY KEY (a, b))`);
      await pg.exec(`INSERT INTO ${name}_src (a, b, n) SELECT g % 7, 'b' || g, g FROM generate_series(1, 600) g`);
      await dropSlot(`${name}_slot`);
      const src = `postgres+cdc://${PG_URL.replace(/^postgres:\/\//, '')}?tables=${name}_src&slot_name=${name}_slot&snapshot=never`;
      const dst = `${PG_URL}?table=${name}_m&columns=auto&key=a,b`;
      expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
      await pg.exec(`INSERT INTO ${name}_m SELECT * FROM ${name}_src`);
      await pg.exec(`BEGIN; UPDATE ${name}_src SET n = -n WHERE n % 5 <> 0; DELETE FROM ${name}_src WHERE n % 5 = 0 AND n < 300; COMMIT`);
      const r = await bridge(['copy', src, dst, '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      const content = "SELECT count(*)::int AS n, sum(n)::int AS s, md5(string_agg(a || b || ':' || n, ',' ORDER BY a, b)) AS h FROM";
      expect(await pg.rows(`${content} ${name}_m`)).toEqual(await pg.rows(`${content} ${name}_src`));
      expect(await pg.rows(`SELECT count(*)::int AS n FROM ${name}_m`)).toEqual([{ n: 541 }]);
      await dropSlot(`${name}_slot`);
      await pg.exec(`DROP PUBLICATION ${name}_slot`);
    }
  });

  it('a mirror keyed by an int[] column, and one with a NOT NULL domain column: a batch of 300 updates and 30 deletes lands in each', async () => {
    await pg.exec("DROP DOMAIN IF EXISTS dm_label CASCADE; CREATE DOMAIN dm_label AS text NOT NULL CHECK (VALUE <> '')");
    for (const [name, cols, key] of [['da', 'id int[] PRIMARY KEY, n int NOT NULL', 'ARRAY[g, -g]'], ['dn', 'id int PRIMARY KEY, n int NOT NULL, label dm_label', 'g']] as const) {
      await pg.exec(`DROP PUBLICATION IF EXISTS ${name}_slot; DROP TABLE IF EXISTS ${name}_src, ${name}_m; CREATE TABLE ${name}_src (${cols}); CREATE TABLE ${name}_m (${cols})`);
      await pg.exec(`INSERT INTO ${name}_src SELECT ${key}, g${name === 'dn' ? ", 'l' || g" : ''} FROM generate_series(1, 400) g; INSERT INTO ${name}_m SELECT * FROM ${name}_src`);
      await dropSlot(`${name}_slot`);
      const src = `postgres+cdc://${PG_URL.replace(/^postgres:\/\//, '')}?tables=${name}_src&slot_name=${name}_slot&snapshot=never`;
      const dst = `${PG_URL}?table=${name}_m&columns=auto&key=id`;
      expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
      await pg.exec(`BEGIN; UPDATE ${name}_src SET n = -n WHERE n <= 300; DELETE FROM ${name}_src WHERE n > 370; COMMIT`);
      const r = await bridge(['copy', src, dst, '--progress', 'none']);
      expect(r.exitCode, `${name}: ${r.stderr}`).toBe(0);
      const content = `SELECT count(*)::int AS n, sum(n)::int AS s, md5(string_agg(${name}_x::text, ',' ORDER BY id)) AS h FROM`;
      expect(await pg.rows(`${content} ${name}_m ${name}_x`)).toEqual(await pg.rows(`${content} ${name}_src ${name}_x`));
      expect(await pg.rows(`SELECT count(*)::int AS n FROM ${name}_m`)).toEqual([{ n: 370 }]);
      await dropSlot(`${name}_slot`);
      await pg.exec(`DROP PUBLICATION ${name}_slot`);
    }
  });

  it('a 300-row batch of updates and deletes whose one update the mirror refuses: that row is a dead letter, the deletes and the other updates land', async () => {
    const { src, dst, done } = await slotPair('dd', 'id int PRIMARY KEY, n int NOT NULL', 'id int PRIMARY KEY, n int NOT NULL CHECK (n <> 7777)');
    await pg.exec('INSERT INTO dd_src SELECT g, g FROM generate_series(1, 400) g');
    expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
    await pg.exec('BEGIN; UPDATE dd_src SET n = CASE WHEN id = 150 THEN 7777 ELSE -id END WHERE id <= 300; DELETE FROM dd_src WHERE id > 380; COMMIT');
    const dead = path.join(dir, 'dd-dead.ndjson');
    const r = await bridge(['copy', src, dst, '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((readWholeLines(dead) as { payload: { id: number } }[]).map((l) => l.payload.id)).toEqual([150]);
    expect(await pg.rows('SELECT count(*)::int AS n, sum(n)::int AS s, max(id) AS hi FROM dd_m')).toEqual([{ n: 380, s: -45150 + 300 + 27240, hi: 380 }]);
    await done();
  });

  it("a mirror whose CHECK divides by zero on one row of a 300-row batch: that row is a dead letter and the rest lands (not taken for another run's position)", async () => {
    const { src, dst, done } = await slotPair('dz', 'id int PRIMARY KEY, n int NOT NULL', 'id int PRIMARY KEY, n int NOT NULL CHECK (1000 / n > 0)');
    await pg.exec('INSERT INTO dz_src SELECT g, CASE WHEN g = 150 THEN 0 ELSE g END FROM generate_series(1, 300) g');
    const dead = path.join(dir, 'dz-dead.ndjson');
    const r = await bridge(['copy', src, dst, '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((readWholeLines(dead) as { payload: { id: number } }[]).map((l) => l.payload.id)).toEqual([150]);
    expect(await pg.rows('SELECT count(*)::int AS n FROM dz_m')).toEqual([{ n: 299 }]);
    await done();
  });

  it("the mirror's position moved by another writer while a tail runs: the tail stops saying so, and the batch it could not claim is not in the mirror", async () => {
    const { src, dst, done } = await slotPair('mv', 'id int PRIMARY KEY, v text NOT NULL', 'id int PRIMARY KEY, v text NOT NULL');
    const tail = spawnBridge(['tail', src, dst, '--progress', 'none']);
    const count = async () => (await pg.rows('SELECT count(*)::int AS n FROM mv_m'))[0]!.n as number;
    await pg.exec("INSERT INTO mv_src SELECT g, 'v' || g FROM generate_series(1, 300) g");
    await waitFor(async () => (await count()) === 300, 20_000, 100);
    await pg.exec("UPDATE bridge_positions SET seq = seq + 5 WHERE route LIKE '%mv_slot%'");
    await pg.exec("INSERT INTO mv_src SELECT g, 'v' || g FROM generate_series(301, 600) g");
    const r = await tail.catch((e: { exitCode: number; stderr: string }) => e);
    expect(r.exitCode, r.stderr).not.toBe(0);
    expect(r.stderr).toContain('moved under this run');
    expect(await count()).toBe(300);
    await done();
  });

  it('a source column widened from varchar(10) to varchar(100) while a tail mirrors it (auto_create_table follows): the next 300 rows of 50 characters land', async () => {
    const { src, dst, done } = await slotPair('wid', 'id int PRIMARY KEY, v varchar(10)', 'id int PRIMARY KEY, v varchar(10)');
    const tail = spawnBridge(['tail', src, `${dst}&auto_create_table=true`, '--progress', 'none']);
    const mirror = async () => (await pg.rows('SELECT count(*)::int AS n, max(length(v))::int AS len FROM wid_m'))[0];
    await pg.exec("INSERT INTO wid_src SELECT g, 'v' || g FROM generate_series(1, 300) g");
    await waitFor(async () => (await mirror())!.n === 300, 20_000, 100);
    await pg.exec("ALTER TABLE wid_src ALTER COLUMN v TYPE varchar(100); INSERT INTO wid_src SELECT g, repeat('x', 50) FROM generate_series(301, 600) g");
    await waitFor(async () => (await mirror())!.n === 600, 20_000, 100).catch(() => undefined);
    tail.kill('SIGINT');
    const r = await tail.catch((e: { exitCode: number; stderr: string }) => e);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await mirror()).toEqual({ n: 600, len: 50 });
    await done();
  });

  it('a delete, then a value the mirror refuses, in one batch without a dead letter: exit 4 naming the refused row and its constraint (not the delete), nothing of the batch applied', async () => {
    const { src, dst, done } = await slotPair('lc', 'id int PRIMARY KEY, n int NOT NULL', 'id int PRIMARY KEY, n int NOT NULL CHECK (n < 1000000)');
    await pg.exec('INSERT INTO lc_src SELECT g, g FROM generate_series(1, 300) g');
    expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
    // The mirror lacks the row the source deletes (a probe of that delete as an insert would fail on n's NOT NULL).
    await pg.exec('DELETE FROM lc_m WHERE id = 2');
    await pg.exec('DELETE FROM lc_src WHERE id = 2; INSERT INTO lc_src VALUES (301, 1000000)');
    const r = await bridge(['copy', src, dst, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain('lc_m_n_check');
    expect(r.stderr).not.toContain('null value');
    expect(r.stderr).toMatch(/message [0-9a-f]{32} was rejected/);
    expect(await pg.rows('SELECT count(*)::int AS n, max(id) AS hi FROM lc_m')).toEqual([{ n: 299, hi: 300 }]);
    await done();
  });

  it('temporary_slot=true leaves no slot behind', async () => {
    await pg.exec('DROP PUBLICATION IF EXISTS tmp_pub; DROP TABLE IF EXISTS t_tmp; CREATE TABLE t_tmp (id int PRIMARY KEY); INSERT INTO t_tmp VALUES (1)');
    const r = await bridge(['copy', `${PG_URL}?table=t_tmp&publication=tmp_pub&slot_name=tmp_slot&create_publication=true&temporary_slot=true`, '-']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('remains');
    expect(await pg.rows("SELECT 1 FROM pg_replication_slots WHERE slot_name = 'tmp_slot'")).toEqual([]);
  });

  it('into a payload-only sink, the operation is only in metadata: one warning naming format=envelope', async () => {
    await pg.exec('DROP PUBLICATION IF EXISTS warn_pub; DROP TABLE IF EXISTS t_warn; CREATE TABLE t_warn (id int PRIMARY KEY)');
    const url = `${PG_URL}?table=t_warn&publication=warn_pub&slot_name=warn_slot&create_publication=true&temporary_slot=true`;
    const p = spawnBridge(['tail', url, '-', '--progress', 'none']);
    await sleep(1500);
    await pg.exec('INSERT INTO t_warn VALUES (1), (2); DELETE FROM t_warn WHERE id = 1');
    await sleep(1000);
    p.kill('SIGTERM');
    const r = await p;
    expect(String(r.stderr).match(/only in message metadata/g)).toHaveLength(1);
    expect(String(r.stderr)).toContain('format=envelope');
  });
});

for (const kind of ['postgres', 'mariadb', 'sqlite'] as const)
  describe(`mirror a table into ${kind}`, () => {
    it('1,000 inserts, 200 updates, 100 deletes, a truncate and a SIGKILL: the mirror equals the source', async () => {
      const target = { postgres: () => pg, mariadb: () => my, sqlite: () => lite }[kind]();
      const slot = `m_slot_${kind}`;
      await pg.exec(`DROP PUBLICATION IF EXISTS m_pub_${kind}; DROP TABLE IF EXISTS t_mirror_src; CREATE TABLE t_mirror_src (id int PRIMARY KEY, v text NOT NULL, n numeric(10,2))`);
      await dropSlot(slot);
      await target.exec('DROP TABLE IF EXISTS t_mirror');
      const src = `${PG_URL}?table=t_mirror_src&publication=m_pub_${kind}&slot_name=${slot}&create_publication=true`;
      const args = ['tail', src, target.url('t_mirror', 'columns=auto&key=id&auto_create_table=true'), '--progress', 'none', '--batch-size', '50'];
      const phase = async (from: number, inserts: number, updates: number, deletes: number) => {
        for (let t = 0; t < inserts / 100; t++) {
          const base = from + t * 100;
          await pg.exec(`INSERT INTO t_mirror_src SELECT g, 'v' || g, g / 7.0 FROM generate_series(${base}, ${base + 99}) g`);
          await sleep(20);
        }
        await pg.exec(`UPDATE t_mirror_src SET v = 'updated ' || id, n = NULL WHERE id IN (SELECT id FROM t_mirror_src ORDER BY id LIMIT ${updates})`);
        await pg.exec(`DELETE FROM t_mirror_src WHERE id IN (SELECT id FROM t_mirror_src ORDER BY id DESC LIMIT ${deletes})`);
      };
      let p = spawnBridge(args);
      await sleep(1500);
      await phase(1, 600, 100, 50);
      p.kill('SIGKILL');
      await p.catch(() => {});
      await pg.exec('TRUNCATE t_mirror_src');
      await phase(10_001, 400, 100, 50);
      p = spawnBridge(args);
      const want = await pg.rows('SELECT id, v, n::text AS n FROM t_mirror_src ORDER BY id');
      const mirror = async () => {
        const r = await bridge(['copy', target.url('t_mirror'), '-', '-q']);
        return (parseLines(r.stdout) as { id: number; v: string; n: string | null }[]).map((x) => ({ id: x.id, v: x.v, n: x.n })).sort((a, b) => a.id - b.id);
      };
      await waitFor(async () => (await mirror()).length === want.length, 30_000, 300).catch(() => undefined);
      p.kill('SIGTERM');
      expect((await p).exitCode).toBe(0);
      expect(want).toHaveLength(350);
      expect(await mirror()).toEqual(want);
    }, 90_000);
  });
