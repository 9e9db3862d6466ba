import pg from 'pg';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBridge, started, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: creating a replication slot waits for every transaction that has written, in any
 * database. A SIGTERM then was ignored until the slot existed, and the slot was left behind. A stop
 * must work at any moment and leave nothing the run created.
 */
const dir = tempDir();
let db: TestDb;
const SLOT = 'bt_slot_stop_setup';
const PUB = 'bt_pub_stop_setup';
beforeAll(async () => {
  db = await postgres();
  await db.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${SLOT}' AND NOT active`);
  await db.exec(`DROP PUBLICATION IF EXISTS ${PUB}; DROP TABLE IF EXISTS t_cdc_stop; CREATE TABLE t_cdc_stop (id int PRIMARY KEY, v text); DROP TABLE IF EXISTS t_cdc_stop_other; CREATE TABLE t_cdc_stop_other (x int)`);
});
afterAll(async () => {
  await db.close();
});

describe('change capture stopped while its slot is being created', () => {
  it('SIGTERM while a writing transaction holds up the slot: the tail stops within seconds and leaves no slot', async () => {
    const writer = new pg.Client({ connectionString: PG_URL });
    await writer.connect();
    await writer.query('BEGIN');
    await writer.query('INSERT INTO t_cdc_stop_other VALUES (1)');
    try {
      const p = spawnBridge(['tail', `${PG_URL}?table=t_cdc_stop&publication=${PUB}&slot_name=${SLOT}&create_publication=true`, `file://${path.join(dir, 'out.ndjson')}`, '--progress', 'none']);
      await started(p);
      // Wait until the slot's creation is waiting on the writer.
      for (let i = 0; i < 100; i++) {
        const waiting = await db.rows("SELECT 1 FROM pg_stat_activity WHERE query LIKE '%pg_create_logical_replication_slot%' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
        if (waiting.length) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const t0 = Date.now();
      p.kill('SIGTERM');
      const r = await Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), 10_000))]);
      const took = Date.now() - t0;
      if (!r) p.kill('SIGKILL');
      expect(r, 'the tail did not stop within 10 s').toBeDefined();
      expect(took).toBeLessThan(5000);
      expect(r!.exitCode, String(r!.stderr)).toBe(0);
      await writer.query('ROLLBACK');
      // A creation cancelled after all would leave nothing either.
      await new Promise((r) => setTimeout(r, 500));
      expect(await db.rows(`SELECT slot_name FROM pg_replication_slots WHERE slot_name = '${SLOT}'`)).toEqual([]);
    } finally {
      await writer.end().catch(() => {});
    }
  }, 30_000);
});
