import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/** Issue 4: a dropped connection to either side is retried with backoff and the tail goes on. */
const dir = tempDir();
let pg: TestDb;
beforeAll(async () => {
  pg = await postgres();
});
afterAll(async () => {
  await pg.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'rc_slot' AND NOT active");
  await pg.close();
});

const ids = (file: string): number[] => (readWholeLines(file) as { id: number }[]).map((r) => r.id);
/** Terminates the run's server connections of one side; returns how many there were. */
const kill = async (app: string): Promise<number> =>
  (await pg.rows(`SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE application_name = '${app}' AND pid <> pg_backend_pid()`)).length;

describe('tail survives dropped connections', () => {
  it('cursor source and PostgreSQL sink: connections killed twice, every row arrives', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_rc_src; CREATE TABLE t_rc_src (id int PRIMARY KEY, v text); DROP TABLE IF EXISTS t_rc_dst; CREATE TABLE t_rc_dst (id int PRIMARY KEY, v text)');
    await pg.exec('DROP TABLE IF EXISTS bridge_cursors_t_rc_src');
    const p = spawnBridge([
      'tail',
      `${PG_URL}?table=t_rc_src&cursor_column=id&cursor_id=rc&polling_interval_ms=20&application_name=bridge_rc_src`,
      `${PG_URL}?table=t_rc_dst&columns=auto&key=id&application_name=bridge_rc_dst`,
      '--batch-size',
      '50',
      '--progress',
      'plain',
      '--progress-interval',
      '200',
    ]);
    const count = async () => Number((await pg.rows('SELECT count(*)::int AS n FROM t_rc_dst'))[0]!.n);
    for (let round = 0; round < 3; round++) {
      await pg.exec(`INSERT INTO t_rc_src SELECT g, 'v' || g FROM generate_series(${round * 1000 + 1}, ${round * 1000 + 1000}) g`);
      await waitFor(async () => (await count()) >= (round + 1) * 1000 - 400, 30_000, 20);
      // Whether a kill lands mid-query (a retry) or on an idle pooled connection (dropped, reopened), the tail goes on.
      if (round < 2) expect(await kill(round === 0 ? 'bridge_rc_src' : 'bridge_rc_dst')).toBeGreaterThan(0);
    }
    await waitFor(async () => (await count()) === 3000, 30_000).catch(async (e: Error) => {
      p.kill('SIGTERM');
      throw new Error(`${e.message}: ${await count()} of 3000 rows; the tail said: ${String((await p).stderr).slice(-3000)}`);
    });
    p.kill('SIGTERM');
    const r = await p;
    expect(r.exitCode).toBe(0);
    expect(await pg.rows('SELECT min(id) AS lo, max(id) AS hi FROM t_rc_dst')).toEqual([{ lo: 1, hi: 3000 }]);
  });

  it('the source connections killed every 30 ms while 5,000 rows arrive: no read is lost when a later query of the poll fails', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_rk_src; CREATE TABLE t_rk_src (id int PRIMARY KEY, v text); DROP TABLE IF EXISTS t_rk_dst; CREATE TABLE t_rk_dst (id int PRIMARY KEY, v text)');
    await pg.exec('DROP TABLE IF EXISTS bridge_cursors_t_rk_src');
    const p = spawnBridge(['tail', `${PG_URL}?table=t_rk_src&cursor_column=id&cursor_id=rk&polling_interval_ms=5&application_name=bridge_rk_src`, `${PG_URL}?table=t_rk_dst&columns=auto&key=id`, '--batch-size', '20', '--progress', 'none']);
    const count = async () => Number((await pg.rows('SELECT count(*)::int AS n FROM t_rk_dst'))[0]!.n);
    let kills = 0;
    // Killing starts once the tail runs (a connection refused at start-up is exit 3, by design).
    await pg.exec(`INSERT INTO t_rk_src VALUES (0, 'v0')`);
    await waitFor(async () => (await count()) === 1, 30_000);
    for (let i = 0; i < 100; i++) {
      await pg.exec(`INSERT INTO t_rk_src SELECT g, 'v' || g FROM generate_series(${i * 50 + 1}, ${i * 50 + 50}) g`);
      kills += await kill('bridge_rk_src');
      await new Promise((r) => setTimeout(r, 30));
    }
    await waitFor(async () => (await count()) === 5001, 30_000).catch(async (e: Error) => {
      p.kill('SIGTERM');
      throw new Error(`${e.message}: ${await count()} of 5001 rows after ${kills} kills`);
    });
    p.kill('SIGTERM');
    expect((await p).exitCode).toBe(0);
    expect(kills).toBeGreaterThan(20);
  }, 120_000);

  it('change capture: the replication connection killed, the stream resumes from the slot', async () => {
    await pg.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'rc_slot' AND NOT active");
    await pg.exec('DROP PUBLICATION IF EXISTS rc_pub; DROP TABLE IF EXISTS t_rc_cdc; CREATE TABLE t_rc_cdc (id int PRIMARY KEY)');
    const out = path.join(dir, 'rc.ndjson');
    const p = spawnBridge(['tail', `${PG_URL}?table=t_rc_cdc&publication=rc_pub&create_publication=true&slot_name=rc_slot&application_name=bridge_rc_cdc`, `file://${out}`, '-q']);
    await waitFor(async () => (await pg.rows("SELECT active FROM pg_replication_slots WHERE slot_name = 'rc_slot'"))[0]?.active === true);
    await pg.exec('INSERT INTO t_rc_cdc SELECT generate_series(1, 500)');
    await waitFor(async () => ids(out).length >= 500);
    await pg.exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'rc_slot'");
    await pg.exec('INSERT INTO t_rc_cdc SELECT generate_series(501, 1000)');
    await waitFor(async () => new Set(ids(out)).size >= 1000, 30_000);
    p.kill('SIGTERM');
    expect((await p).exitCode).toBe(0);
    expect(new Set(ids(out)).size).toBe(1000);
  });
});
