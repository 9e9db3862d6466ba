import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, started, tempDir, readWholeLines } from '../helpers/bridge.js';
import { PG_URL } from '../helpers/databases.js';

/**
 * Large transactions streamed while in progress (pgoutput protocol 2) into a PostgreSQL mirror: the
 * mirror applies them into a transaction it holds open, so the apply runs beside the server's
 * decoding instead of after it. The database these tests make has logical_decoding_work_mem at its
 * minimum (64 kB), so a few thousand changes are enough for the server to stream a transaction. A
 * trigger on each mirror records the sink transaction of every change it receives.
 */
const DB = 'bridge_inprog';
const base = new URL(PG_URL);
base.pathname = `/${DB}`;
const SRC_URL = base.toString().replace(/^postgres(ql)?:/, 'postgres+cdc:');
let admin: pg.Client;
let db: pg.Client;
const rows = async (sql: string): Promise<Record<string, unknown>[]> => (await db.query(sql)).rows as Record<string, unknown>[];
const md5 = (table: string) => rows(`SELECT count(*)::int AS n, md5(coalesce(string_agg(id || ':' || v || ':' || n, ',' ORDER BY id), '')) AS sum FROM ${table}`);
/** A session of the mirror's database holds a transaction open (not the test's own `open` one). */
const mirrorHolds = async (open: pg.Client, sessions = 1): Promise<boolean> =>
  (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = '${DB}' AND state = 'idle in transaction' AND pid <> $1 AND backend_type = 'client backend'`, [(open as unknown as { processID: number }).processID])).rowCount === sessions;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '${DB}'`);
  await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.query(`ALTER DATABASE ${DB} SET logical_decoding_work_mem = '64kB'`);
  db = new pg.Client({ connectionString: base.toString() });
  await db.connect();
  await db.query(`CREATE TABLE sink_log (tbl text, xid xid8, op text);
    CREATE FUNCTION logged() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO sink_log VALUES (TG_TABLE_NAME, pg_current_xact_id(), TG_OP); RETURN NULL; END $$`);
});
afterAll(async () => {
  await db?.end();
  await admin.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '${DB}' AND NOT active`);
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.end();
}, 60_000);

/** A source table and its mirror (typed like it, with the logging trigger), the slot made and caught up. */
async function pair(name: string, mirrorDdl = ''): Promise<{ src: string; dst: string }> {
  await db.query(`CREATE TABLE ${name} (id int PRIMARY KEY, v text NOT NULL, n int NOT NULL);
    CREATE TABLE ${name}_m (id int PRIMARY KEY, v text NOT NULL, n int NOT NULL${mirrorDdl});
    CREATE TRIGGER logged AFTER INSERT OR UPDATE OR DELETE ON ${name}_m FOR EACH ROW EXECUTE FUNCTION logged()`);
  const src = `${SRC_URL}?tables=${name}&slot_name=${name}`;
  const dst = `${base.toString()}?table=${name}_m&columns=auto`;
  const r = await bridge(['copy', src, dst, '-q']);
  expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
  return { src, dst };
}

/** A source transaction left open after `statements` (the test commits or rolls it back). */
async function inProgress(...statements: string[]): Promise<pg.Client> {
  const open = new pg.Client({ connectionString: base.toString() });
  await open.connect();
  for (const sql of ['BEGIN', ...statements]) await open.query(sql);
  return open;
}

const sinkTransactions = async (table: string): Promise<number> => Number((await rows(`SELECT count(DISTINCT xid)::int AS n FROM sink_log WHERE tbl = '${table}'`))[0]!.n);

describe('a transaction streamed while in progress, into a PostgreSQL mirror', () => {
  it('a 30,000-change transaction lands in one mirror transaction, none of it visible before its commit, while a small one committed meanwhile lands at once', async () => {
    const { src, dst } = await pair('big');
    await db.query("INSERT INTO big SELECT g, md5(g::text), 0 FROM generate_series(1, 1000) g");
    const tail = spawnBridge(['tail', src, dst, '--progress', 'none']);
    await started(tail);
    await waitUntil(async () => (await md5('big_m'))[0]!.n === 1000);
    const open = await inProgress("INSERT INTO big SELECT g, md5(g::text), 1 FROM generate_series(1001, 21000) g", 'UPDATE big SET n = n + 1 WHERE id > 11000');
    // The mirror holds a transaction open for it (its parts applied) while it is in progress at the source.
    await waitUntil(() => mirrorHolds(open));
    expect((await md5('big_m'))[0]!.n).toBe(1000);
    await db.query("UPDATE big SET v = 'meanwhile' WHERE id = 7");
    await waitUntil(async () => (await rows("SELECT v FROM big_m WHERE id = 7"))[0]!.v === 'meanwhile');
    expect((await md5('big_m'))[0]!.n).toBe(1000);
    await open.query('COMMIT');
    await open.end();
    await waitUntil(async () => JSON.stringify(await md5('big_m')) === JSON.stringify(await md5('big')));
    tail.kill('SIGINT');
    const r = await tail;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning|error/);
    // 1 for the first 1,000 rows, 1 for the row updated meanwhile, 1 for the 30,000 changes.
    expect(await sinkTransactions('big_m')).toBe(3);
  });

  it('a transaction rolled back at the source while the mirror held it leaves nothing in the mirror, and what came after lands', async () => {
    const { src, dst } = await pair('rolled');
    const open = await inProgress("INSERT INTO rolled SELECT g, md5(g::text), 0 FROM generate_series(1, 20000) g");
    const tail = spawnBridge(['tail', src, dst, '--progress', 'none']);
    await started(tail);
    await waitUntil(() => mirrorHolds(open));
    await open.query('ROLLBACK');
    await open.end();
    await db.query("INSERT INTO rolled VALUES (1, 'kept', 1)");
    await waitUntil(async () => (await rows('SELECT 1 FROM rolled_m')).length > 0);
    await waitUntil(async () => !(await mirrorHolds(open)));
    tail.kill('SIGINT');
    const r = await tail;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning|error/);
    expect(await rows('SELECT id, v, n FROM rolled_m')).toEqual([{ id: 1, v: 'kept', n: 1 }]);
  });

  it('a savepoint rolled back after changing captured rows: the transaction is read again whole, and the mirror ends equal', async () => {
    const { src, dst } = await pair('saved');
    await db.query(`BEGIN; INSERT INTO saved SELECT g, md5(g::text), 0 FROM generate_series(1, 10000) g;
      SAVEPOINT s; UPDATE saved SET n = -1 WHERE id <= 8000; DELETE FROM saved WHERE id > 9000; ROLLBACK TO SAVEPOINT s;
      UPDATE saved SET n = 2 WHERE id > 5000; COMMIT`);
    const r = await bridge(['copy', src, dst, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/a savepoint of transaction \d+ was rolled back after changing captured rows: the slot is read again/);
    expect(await md5('saved_m')).toEqual(await md5('saved'));
    expect(await rows('SELECT count(*)::int AS n FROM saved_m WHERE n = -1')).toEqual([{ n: 0 }]);
  });

  for (const [where, bad] of [['in its middle', 4321], ['in its last part, its commit already on its way', 20000]] as const)
    it(`a value the mirror rejects ${where}: the transaction is read again whole, the value goes to the dead-letter file, the rest lands`, async () => {
      const table = `refused_${bad}`;
      const { src, dst } = await pair(table, ', CHECK (n < 1000000)');
      await db.query(`INSERT INTO ${table} SELECT g, md5(g::text), CASE WHEN g = ${bad} THEN 1000000 ELSE g END FROM generate_series(1, 20000) g`);
      const dead = path.join(tempDir(), 'dead.ndjson');
      const r = await bridge(['copy', src, dst, '--dead-letter', `file://${dead}`, '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`the sink could not apply a part of transaction \\d+ .*${table}_m_n_check.*: the slot is read again`));
      expect(await rows(`SELECT count(*)::int AS n FROM ${table}_m`)).toEqual([{ n: 19999 }]);
      const letters = readWholeLines(dead) as { payload: { id: number } }[];
      expect(letters.map((l) => l.payload.id)).toEqual([bad]);
    });

  it('the replication connection lost while the mirror holds a transaction: what it held is rolled back, the transaction streams again and lands once', async () => {
    const { src, dst } = await pair('lost');
    const open = await inProgress("INSERT INTO lost SELECT g, md5(g::text), 0 FROM generate_series(1, 20000) g");
    const tail = spawnBridge(['tail', src, dst, '--progress', 'none']);
    await started(tail);
    await waitUntil(() => mirrorHolds(open));
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'walsender' AND datname = '${DB}'`);
    await waitUntil(async () => (await admin.query(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'lost' AND active`)).rowCount === 1);
    await open.query("UPDATE lost SET n = 2 WHERE id > 19000");
    await open.query('COMMIT');
    await open.end();
    await waitUntil(async () => JSON.stringify(await md5('lost_m')) === JSON.stringify(await md5('lost')));
    tail.kill('SIGINT');
    const r = await tail;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await rows("SELECT count(*)::int AS inserts, count(DISTINCT xid)::int AS transactions FROM sink_log WHERE tbl = 'lost_m' AND op = 'INSERT'")).toEqual([{ inserts: 20000, transactions: 1 }]);
  });

  it('killed while the mirror holds a transaction: nothing of it is left, and the next run applies it whole', async () => {
    const { src, dst } = await pair('killed');
    const open = await inProgress("INSERT INTO killed SELECT g, md5(g::text), 0 FROM generate_series(1, 20000) g");
    const tail = spawnBridge(['tail', src, dst, '--progress', 'none']);
    await started(tail);
    await waitUntil(() => mirrorHolds(open));
    tail.kill('SIGKILL');
    await tail;
    await open.query('COMMIT');
    await open.end();
    await waitUntil(async () => (await admin.query(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'killed' AND active`)).rowCount === 0);
    expect(await rows('SELECT count(*)::int AS n FROM killed_m')).toEqual([{ n: 0 }]);
    const r = await bridge(['copy', src, dst, '-q']);
    expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
    expect(await md5('killed_m')).toEqual(await md5('killed'));
    expect((await admin.query("SELECT active FROM pg_replication_slots WHERE slot_name = 'killed'")).rows).toEqual([{ active: false }]);
  });
});

describe('a transaction streamed while in progress that changes two captured tables', () => {
  const run = async (maxConnections: number): Promise<string> => {
    await db.query(`DROP SCHEMA IF EXISTS m CASCADE; DROP TABLE IF EXISTS two_a, two_b; CREATE SCHEMA m;
      CREATE TABLE two_a (id int PRIMARY KEY, v text NOT NULL, n int NOT NULL); CREATE TABLE two_b (id int PRIMARY KEY, v text NOT NULL, n int NOT NULL)`);
    const slot = `two_${maxConnections}`;
    const src = `${SRC_URL}?tables=two_a,two_b&slot_name=${slot}`;
    const dst = `${base.toString()}?table=m.*&columns=auto&auto_create_table=true&max_connections=${maxConnections}`;
    expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
    const open = await inProgress("INSERT INTO two_a SELECT g, md5(g::text), 0 FROM generate_series(1, 15000) g", "INSERT INTO two_b SELECT g, md5(g::text), 1 FROM generate_series(1, 15000) g");
    const tail = spawnBridge(['tail', src, dst, '--progress', 'none']);
    await started(tail);
    if (maxConnections > 2) await waitUntil(() => mirrorHolds(open, 2));
    await open.query('COMMIT');
    await open.end();
    await db.query("UPDATE two_a SET v = 'after' WHERE id = 1");
    await waitUntil(async () => JSON.stringify([await md5('m.two_a'), await md5('m.two_b')]) === JSON.stringify([await md5('two_a'), await md5('two_b')]));
    tail.kill('SIGINT');
    const r = await tail;
    expect(r.exitCode, r.stderr).toBe(0);
    await admin.query(`SELECT pg_drop_replication_slot('${slot}')`);
    return r.stderr;
  };

  it('each mirror holds its part, and both land at the commit', async () => {
    expect(await run(10)).not.toMatch(/warning|error/);
  });

  it('with max_connections=2 the second table cannot be held (no connection would be left): the transaction is read again whole, and both land', async () => {
    expect(await run(2)).toMatch(/would leave none of max_connections=2 for the other writes.*the slot is read again/);
  });
});

async function waitUntil(ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
