import type { ResultPromise } from 'execa';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, readWholeLines, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/** PostgreSQL change capture (issue 4). Needs wal_level=logical, which .ci/run sets. */
const dir = tempDir();
let pg: TestDb;
const SLOT = 'bt_slot';
const PUB = 'bt_pub';
type Env = { metadata: Record<string, string>; payload: { id: number; v?: string } };
const read = (file: string): Env[] => readWholeLines(file) as Env[];
const key = (e: Env): string => `${e.metadata['bridge.op']}:${e.payload.id}:${e.payload.v ?? ''}`;
const lsn = (s: string): bigint => {
  const [hi, lo] = s.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
};
const running: ResultPromise[] = [];
const spawn = (args: string[]): ResultPromise => {
  const p = spawnBridge(args);
  running.push(p);
  return p;
};
async function stopAll(): Promise<void> {
  for (const p of running.splice(0)) {
    p.kill('SIGKILL');
    await p;
  }
}
const tailArgs = (out: string, extra = '') => ['tail', `${PG_URL}?table=t_cdc&publication=${PUB}&slot_name=${SLOT}&create_publication=true&source_metadata=true${extra}`, `file://${out}?format=envelope`, '--progress', 'none'];

async function reset(): Promise<void> {
  // A test that failed part-way may have left its tail running on the slot: end it, or every later
  // test would wait on a slot another process holds.
  await stopAll();
  await waitFor(async () => (await pg.rows(`SELECT 1 FROM pg_replication_slots WHERE slot_name = '${SLOT}' AND active`)).length === 0, 10_000);
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${SLOT}' AND NOT active`);
  await pg.exec(`DROP PUBLICATION IF EXISTS ${PUB}; DROP TABLE IF EXISTS t_cdc; CREATE TABLE t_cdc (id int PRIMARY KEY, v text)`);
}

/** 1k inserts, 200 updates, 100 deletes over 10 committed transactions, plus rolled-back ones. Returns the expected messages in commit order. */
async function workload(db: TestDb, from = 0, pauseMs = 0): Promise<string[]> {
  const expected: string[] = [];
  for (let t = 0; t < 10; t++) {
    const base = from + t * 100;
    const stmts: string[] = [];
    for (let i = 0; i < 100; i++) {
      stmts.push(`INSERT INTO t_cdc VALUES (${base + i}, 'v${base + i}')`);
      expected.push(`insert:${base + i}:v${base + i}`);
    }
    for (let i = 0; i < 20; i++) {
      stmts.push(`UPDATE t_cdc SET v = 'u${base + i}' WHERE id = ${base + i}`);
      expected.push(`update:${base + i}:u${base + i}`);
    }
    for (let i = 90; i < 100; i++) {
      stmts.push(`DELETE FROM t_cdc WHERE id = ${base + i}`);
      expected.push(`delete:${base + i}:`);
    }
    await db.exec(`BEGIN; ${stmts.join('; ')}; COMMIT`);
    await db.exec(`BEGIN; INSERT INTO t_cdc VALUES (${900000 + from + t}, 'rolled back'); ROLLBACK`);
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
  }
  return expected;
}

beforeAll(async () => {
  pg = await postgres();
  const level = await pg.rows('SHOW wal_level');
  if (level[0]!.wal_level !== 'logical') throw new Error('these tests need wal_level=logical (run .ci/run, which sets it)');
});
afterAll(async () => {
  await stopAll();
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${SLOT}' AND NOT active`);
  await pg.close();
});

describe('change capture (publication)', () => {
  it('inserts, updates and deletes of mixed transactions arrive in commit order, exactly, rolled-back work never', async () => {
    await reset();
    const out = path.join(dir, 'cdc1.ndjson');
    const p = spawn(tailArgs(out));
    await waitFor(async () => (await pg.rows(`SELECT active FROM pg_replication_slots WHERE slot_name = '${SLOT}'`))[0]?.active === true);
    const expected = await workload(pg);
    await waitFor(async () => read(out).length >= expected.length, 30_000);
    p.kill('SIGTERM');
    expect((await p).exitCode).toBe(0);
    const got = read(out);
    expect(got.map(key)).toEqual(expected);
    expect(got.every((e) => /^[0-9A-F]+\/[0-9A-F]+$/.test(e.metadata['bridge.src.pg_lsn']!))).toBe(true);
    expect(new Set(got.map((e) => e.metadata['bridge.table']))).toEqual(new Set(['t_cdc']));
  });

  it('the slot confirms only what the sink confirmed: SIGKILL and a restart lose nothing and re-deliver nothing older than the last confirmed commit', async () => {
    await reset();
    const out = path.join(dir, 'cdc2.ndjson');
    const first = spawn([...tailArgs(out), '--batch-size', '37']);
    await waitFor(async () => (await pg.rows(`SELECT active FROM pg_replication_slots WHERE slot_name = '${SLOT}'`))[0]?.active === true);
    const work = workload(pg, 0, 40);
    await waitFor(async () => read(out).length >= 400, 30_000);
    first.kill('SIGKILL');
    await first;
    const beforeRestart = read(out).length;
    await waitFor(async () => (await pg.rows(`SELECT active FROM pg_replication_slots WHERE slot_name = '${SLOT}'`))[0]?.active === false);
    const confirmed = lsn(String((await pg.rows(`SELECT confirmed_flush_lsn::text AS l FROM pg_replication_slots WHERE slot_name = '${SLOT}'`))[0]!.l));
    const expected = await work;
    const second = spawn([...tailArgs(out), '--batch-size', '37']);
    await waitFor(async () => {
      const seen = new Set(read(out).map(key));
      return expected.every((k) => seen.has(k));
    }, 30_000);
    second.kill('SIGTERM');
    expect((await second).exitCode).toBe(0);
    const all = read(out);
    const again = all.slice(beforeRestart);
    expect(again.every((e) => lsn(e.metadata['bridge.src.pg_lsn']!) >= confirmed)).toBe(true);
    // Without the re-delivered overlap, the stream is exactly the workload in commit order.
    const dedup: string[] = [];
    const seen = new Set<string>();
    for (const e of all) if (!seen.has(e.metadata['bridge.src.pg_lsn']!)) (seen.add(e.metadata['bridge.src.pg_lsn']!), dedup.push(key(e)));
    expect(dedup).toEqual(expected);
  });

  it("the slot's confirmed_flush_lsn advances during a quiet period (keepalives), so WAL does not pile up", async () => {
    await reset();
    await pg.exec('DROP TABLE IF EXISTS t_cdc_other; CREATE TABLE t_cdc_other (x int)');
    const out = path.join(dir, 'cdc3.ndjson');
    const p = spawn(tailArgs(out));
    await waitFor(async () => (await pg.rows(`SELECT active FROM pg_replication_slots WHERE slot_name = '${SLOT}'`))[0]?.active === true);
    await pg.exec('INSERT INTO t_cdc_other SELECT generate_series(1, 1000)');
    const target = lsn(String((await pg.rows('SELECT pg_current_wal_lsn()::text AS l'))[0]!.l));
    const advanced = await waitFor(async () => {
      // NULL while the slot is still being made (it is active by then): not yet, rather than a failure.
      const l = (await pg.rows(`SELECT confirmed_flush_lsn::text AS l FROM pg_replication_slots WHERE slot_name = '${SLOT}'`))[0]?.l;
      const c = l ? lsn(String(l)) : undefined;
      return c !== undefined && c >= target ? c : undefined;
    }, 15_000);
    expect(advanced >= target).toBe(true);
    expect(read(out)).toEqual([]);
    p.kill('SIGTERM');
    expect((await p).exitCode).toBe(0);
  });

  it('copy with a publication stops once caught up', async () => {
    await reset();
    const out = path.join(dir, 'cdc4.ndjson');
    // The slot must exist before the changes: a first run creates it and stops at once.
    expect((await bridge(['copy', ...tailArgs(out).slice(1)])).exitCode).toBe(0);
    await pg.exec("INSERT INTO t_cdc VALUES (1, 'a'), (2, 'b')");
    const r = await bridge(['copy', ...tailArgs(out).slice(1)]);
    expect(r.exitCode).toBe(0);
    expect(read(out).map(key)).toEqual(['insert:1:a', 'insert:2:b']);
  });
});

describe('change capture errors say what to fix', () => {
  it('a missing publication without create_publication', async () => {
    await reset();
    const r = await bridge(['tail', `${PG_URL}?table=t_cdc&publication=${PUB}&slot_name=${SLOT}`, 'file:///dev/null']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/publication bt_pub does not exist: set create_publication=true, or run CREATE PUBLICATION bt_pub FOR TABLE t_cdc/);
  });

  it('a slot held by another process', async () => {
    await reset();
    const out = path.join(dir, 'cdc5.ndjson');
    const p = spawn(tailArgs(out));
    await waitFor(async () => (await pg.rows(`SELECT active FROM pg_replication_slots WHERE slot_name = '${SLOT}'`))[0]?.active === true);
    const r = await bridge(tailArgs(path.join(dir, 'cdc6.ndjson')));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/replication slot bt_slot is in use by .*: stop it, or give this one another slot_name/);
    p.kill('SIGTERM');
    await p;
  });

  it('missing privileges: publication ownership and the REPLICATION attribute', async () => {
    await reset();
    await pg.exec("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bridge_plain') THEN CREATE ROLE bridge_plain LOGIN; END IF; END $$; GRANT SELECT ON t_cdc TO bridge_plain");
    const url = PG_URL.replace(/\/\/[^@]*@/, '//bridge_plain@');
    const own = await bridge(['tail', `${url}?table=t_cdc&publication=${PUB}&slot_name=${SLOT}&create_publication=true`, 'file:///dev/null']);
    expect(own.exitCode).toBe(2);
    expect(own.stderr).toMatch(/creating publication bt_pub needs ownership of t_cdc/);
    await pg.exec(`CREATE PUBLICATION ${PUB} FOR TABLE t_cdc`);
    const repl = await bridge(['tail', `${url}?table=t_cdc&publication=${PUB}&slot_name=${SLOT}`, 'file:///dev/null']);
    expect(repl.exitCode).toBe(2);
    expect(repl.stderr).toMatch(/REPLICATION attribute: ALTER ROLE <user> WITH REPLICATION/);
  });

  it('publication with cursor_column is a config error', async () => {
    const r = await bridge(['tail', `${PG_URL}?table=t_cdc&publication=${PUB}&cursor_column=id`, 'file:///dev/null']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/publication \(change capture\) cannot be combined with cursor_column/);
  });
});
