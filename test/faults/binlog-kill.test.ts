import { createHash } from 'node:crypto';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binlogDb, BINLOG_URL, type BinlogDb } from '../helpers/binlog.js';
import { spawnBridge, started, tempDir, waitFor } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { record } from './report.js';

/**
 * Issue 27, 5: a mirror of a MariaDB table built from scratch by binlog change capture while
 * writers insert, update and delete in small transactions, with SIGKILLs in the snapshot phase
 * (each after the snapshot's progress moved) and in the stream phase. At the end the mirror equals
 * the source: the md5 of its ordered rows. BRIDGE_FAULT_KILLS kills in all, half in each phase.
 */
const db = await binlogDb();
const skip = typeof db === 'string' ? db : undefined;
if (skip) console.warn(`binlog-kill: skipped: ${skip}`);
const KILLS = Math.max(2, Number(process.env.BRIDGE_FAULT_KILLS ?? 4));
const ROWS = 60_000;
const dir = tempDir('faults-binlog-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let my: BinlogDb;
let targets: Record<'sqlite' | 'postgres', TestDb>;

beforeAll(async () => {
  if (skip) return;
  my = db as BinlogDb;
  targets = { postgres: await postgres(), sqlite: sqlite(path.join(dir, 'mirror.db')) };
});
afterAll(async () => {
  if (skip) return;
  await my.close();
  await targets.postgres.close();
  await targets.sqlite.close();
});

const line = (r: Record<string, unknown>) => `${String(r.id)}|${String(r.bid)}|${String(r.balance)}|${String(r.filler)}`;
const md5 = (rows: Record<string, unknown>[]) => createHash('md5').update(rows.map(line).join('\n')).digest('hex');

/** Writers in small transactions (an insert, an update, a delete each) until stopped; returns how many committed. */
function writers(n: number): { stop(): Promise<number> } {
  let on = true;
  let next = ROWS + 1;
  let count = 0;
  const one = async () => {
    const c = await mysql.createConnection({ uri: BINLOG_URL!.replace(/^mariadb:/, 'mysql:'), multipleStatements: true });
    while (on) {
      const id = next++;
      const r = Math.floor(Math.random() * ROWS) + 1;
      await c.query(`BEGIN; INSERT INTO bl_acc VALUES (${id}, ${id % 10}, 0, 'new ${id}'); UPDATE bl_acc SET balance = balance + ${r % 97} - 40 WHERE id = ${r}; DELETE FROM bl_acc WHERE id = ${(r * 7919) % ROWS}; COMMIT`);
      count++;
      await sleep(3);
    }
    await c.end();
  };
  const all = Promise.all(Array.from({ length: n }, one));
  return {
    async stop() {
      on = false;
      await all;
      return count;
    },
  };
}

describe.skipIf(skip !== undefined)('binlog change capture under SIGKILL', () => {
  for (const kind of ['sqlite', 'postgres'] as const)
    it(`${KILLS} SIGKILLs in the snapshot and the stream while 4 writers commit: the ${kind} mirror equals the source (md5)`, async () => {
      const slot = `bl_kill_${kind}`;
      await my.exec(`DROP TABLE IF EXISTS bl_acc, bridge_cursors_bl_acc; CREATE TABLE bl_acc (id int PRIMARY KEY, bid int NOT NULL, balance bigint NOT NULL, filler varchar(60) NOT NULL)`);
      await my.exec(`INSERT INTO bl_acc SELECT seq, seq % 10, 0, CONCAT('row ', seq) FROM seq_1_to_${ROWS}`);
      await targets[kind].exec('DROP TABLE IF EXISTS bl_acc');
      const sink = kind === 'sqlite' ? `sqlite://${path.join(dir, 'mirror.db')}?table=bl_acc` : `${PG_URL}?table=bl_acc`;
      const args = ['tail', my.cdc(`tables=bl_acc&slot_name=${slot}`), `${sink}&columns=auto&key=id&auto_create_table=true`, '--progress', 'none', '--batch-size', '200'];
      const state = async () => String((await my.rows(`SELECT last_value FROM bridge_cursors_bl_acc WHERE cursor_id = 'cdc:${slot}'`).catch(() => []))[0]?.last_value ?? '');
      const w = writers(4);
      let kills = 0;
      let inSnapshot = 0;
      // Snapshot phase: each kill once its progress moved past the last one's.
      for (let seen = ''; inSnapshot < Math.ceil(KILLS / 2); ) {
        const p = spawnBridge(args);
        await started(p);
        const moved = await waitFor(async () => {
          const s = await state();
          return (s.includes('"after"') && s !== seen) || s.includes('"position"') ? s : undefined;
        }, 60_000, 20);
        await sleep(Math.random() * 300);
        p.kill('SIGKILL');
        await p;
        kills++;
        if (!moved.includes('"snapshot"')) break;
        inSnapshot++;
        seen = await state();
      }
      // Stream phase.
      while (kills < KILLS) {
        const p = spawnBridge(args);
        await started(p);
        await waitFor(async () => (await state()).includes('"position"'), 60_000, 50);
        await sleep(500 + Math.random() * 1500);
        p.kill('SIGKILL');
        await p;
        kills++;
      }
      const p = spawnBridge(args);
      await sleep(2000);
      const txs = await w.stop();
      const want = md5(await my.rows('SELECT id, bid, balance, filler FROM bl_acc ORDER BY id'));
      const have = async () => md5(await targets[kind].rows('SELECT id, bid, balance, filler FROM bl_acc ORDER BY id').catch(() => []));
      const same = await waitFor(async () => (await have()) === want, 90_000, 500).catch(() => false);
      p.kill('SIGTERM');
      const r = await p;
      const mirrored = new Set((await targets[kind].rows('SELECT id, bid, balance, filler FROM bl_acc')).map(line));
      const differ = (await my.rows('SELECT id, bid, balance, filler FROM bl_acc')).filter((x) => !mirrored.has(line(x))).length;
      record({ scenario: `binlog capture → ${kind} mirror, ${inSnapshot} kills in the snapshot and ${kills - inSnapshot} in the stream`, runs: kills + 1, lost: differ, duplicates: 0, outcome: same ? `mirror equal (md5), ${txs} writer transactions` : `MIRROR DIFFERS in ${differ} rows` });
      expect(inSnapshot, 'kills that came during the snapshot').toBeGreaterThanOrEqual(1);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(await have()).toBe(want);
    }, 400_000);
});
