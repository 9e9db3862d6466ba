import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, spawnBridge, started, tempDir, waitFor } from '../helpers/bridge.js';
import { mysqlLike, postgres, session, type TestDb } from '../helpers/databases.js';
import { kindsOfThisPhase } from '../helpers/phase.js';

/**
 * Issue 26: a tail by updated_at must deliver a row's last version even when that version commits
 * late, after an older version of the same row was delivered while a read window was still open.
 * Before the fix the late re-read told rows apart by primary key only, so the new version counted
 * as delivered and the saved position moved past it for good.
 */
const dir = tempDir();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let dbs: Record<string, TestDb>;

beforeAll(async () => {
  dbs = { postgres: await postgres(), mariadb: await mysqlLike('mariadb') };
});
afterAll(async () => {
  for (const d of Object.values(dbs)) await d.close();
});

const SETUP: Record<string, (t: string) => string[]> = {
  postgres: (t) => [
    `CREATE TABLE ${t} (id int PRIMARY KEY, v int NOT NULL, updated_at timestamptz NOT NULL)`,
    `INSERT INTO ${t} SELECT g, 0, now() - interval '1 hour' + g * interval '1 ms' FROM generate_series(1, 100) g`,
  ],
  mariadb: (t) => [
    `CREATE TABLE ${t} (id int PRIMARY KEY, v int NOT NULL, updated_at datetime(6) NOT NULL)`,
    `INSERT INTO ${t} SELECT seq, 0, now(6) - interval 1 hour + interval seq * 1000 microsecond FROM seq_1_to_100`,
  ],
};
const NOW: Record<string, string> = { postgres: 'clock_timestamp()', mariadb: 'now(6)' };
const SLEEP: Record<string, (s: number) => string> = { postgres: (s) => `SELECT pg_sleep(${s})`, mariadb: (s) => `SELECT SLEEP(${s})` };

for (const kind of kindsOfThisPhase(['postgres', 'mariadb'] as const))
  describe(`${kind}: tail by updated_at`, () => {
    it("a row's new version that commits late, while its older version was delivered and a window is open, still arrives", async () => {
      const db = dbs[kind]!;
      const t = `t_last_version_${kind}`;
      await db.exec(`DROP TABLE IF EXISTS ${t}`);
      await db.exec(`DROP TABLE IF EXISTS bridge_cursors_${t}`);
      for (const s of SETUP[kind]!(t)) await db.exec(s);
      const out = path.join(dir, `${t}.ndjson`);
      const p = spawnBridge(['tail', db.url(t, 'cursor_id=lv&polling_interval_ms=50'), `file://${out}`, '--cursor-column', 'updated_at', '--progress', 'none']);
      await started(p);
      await waitFor(async () => readWholeLines(out).length >= 100);

      const now = NOW[kind]!;
      const long = await session(kind);
      const slow = await session(kind);
      // A long transaction keeps every window open for 8 s.
      await long.run('BEGIN');
      await long.run(`UPDATE ${t} SET v = 1, updated_at = ${now} WHERE id = 100`);
      const longDone = long.run(SLEEP[kind]!(8)).then(() => long.run('COMMIT'));
      await sleep(300);
      // Row 5 moves to v=1 at once; the tail delivers it.
      await db.exec(`UPDATE ${t} SET v = 1, updated_at = ${now} WHERE id = 5`);
      await waitFor(async () => readWholeLines(out).some((r) => (r as { id: number; v: number }).id === 5 && Number((r as { v: number }).v) === 1));
      // Its next version takes its cursor value now but commits 2 s later...
      await slow.run('BEGIN');
      await slow.run(`UPDATE ${t} SET v = 2, updated_at = ${now} WHERE id = 5`);
      const slowDone = slow.run(SLEEP[kind]!(2)).then(() => slow.run('COMMIT'));
      await sleep(200);
      // ...while row 6 moves the read position past it.
      await db.exec(`UPDATE ${t} SET v = 1, updated_at = ${now} WHERE id = 6`);
      await Promise.all([longDone, slowDone]);
      await long.close();
      await slow.close();

      const last = async () => {
        const rows = readWholeLines(out) as { id: number; v: number }[];
        const five = rows.filter((r) => Number(r.id) === 5).map((r) => Number(r.v));
        return five.at(-1) === 2 && rows.some((r) => Number(r.id) === 100 && Number(r.v) === 1) ? five : undefined;
      };
      const five = await waitFor(last, 15_000).catch(() => undefined);
      p.kill('SIGTERM');
      expect((await p).exitCode).toBe(0);
      const versions = (readWholeLines(out) as { id: number; v: number }[]).filter((r) => Number(r.id) === 5).map((r) => Number(r.v));
      expect(five ?? versions).toEqual([0, 1, 2]);
    }, 60_000);
  });
