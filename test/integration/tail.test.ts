import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
let dbs: TestDb[];
beforeAll(async () => {
  dbs = [await postgres(), await mysqlLike('mariadb'), sqlite(path.join(dir, 'tail.db'))];
});
afterAll(async () => {
  for (const db of dbs) await db.close();
});

const serial = (kind: TestDb['kind']): string =>
  kind === 'postgres' ? 'id bigserial PRIMARY KEY' : kind === 'sqlite' ? 'id INTEGER PRIMARY KEY AUTOINCREMENT' : 'id bigint AUTO_INCREMENT PRIMARY KEY';

const ids = (file: string): number[] => (existsSync(file) ? (parseLines(readFileSync(file, 'utf8')) as { id: number }[]).map((r) => r.id) : []);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function insertRows(db: TestDb, table: string, from: number, count: number): Promise<void> {
  await db.exec(`INSERT INTO ${table} (v) VALUES ${Array.from({ length: count }, (_, i) => `('row ${from + i}')`).join(', ')}`);
}

for (const kind of ['postgres', 'mariadb', 'sqlite'] as const) {
  describe(`${kind}: tail with cursor_id`, () => {
    const db = (): TestDb => dbs.find((d) => d.kind === kind)!;

    it('follows rows inserted while tailing and stops cleanly on SIGTERM with exit 0', async () => {
      const table = `t_tail_${kind}`;
      await db().exec(`DROP TABLE IF EXISTS ${table}`);
      await db().exec(`DROP TABLE IF EXISTS bridge_cursors_${table}`);
      await db().exec(`CREATE TABLE ${table} (${serial(kind)}, v varchar(40))`);
      await insertRows(db(), table, 0, 50);
      const out = path.join(dir, `${table}.ndjson`);
      const p = spawnBridge(['tail', db().url(table, 'cursor_id=t1&polling_interval_ms=20'), `file://${out}`, '--cursor-column', 'id', '--batch-size', '25', '--progress', 'none']);
      for (let i = 0; i < 5; i++) {
        await sleep(60);
        await insertRows(db(), table, 50 + i * 50, 50);
      }
      await waitFor(async () => ids(out).length >= 300);
      p.kill('SIGTERM');
      const r = await p;
      expect(r.exitCode).toBe(0);
      expect(String(r.stderr)).toMatch(/stopped: 300 rows/);
      expect(ids(out)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
      const stored = await db().rows(`SELECT last_value FROM bridge_cursors_${table} WHERE cursor_id = 't1'`);
      expect(JSON.parse(String(stored[0]!.last_value)).value).toBe('int:300');
    });

    it('SIGKILL mid-stream and a restart lose no row (the unconfirmed batch may come again)', async () => {
      const table = `t_kill_${kind}`;
      await db().exec(`DROP TABLE IF EXISTS ${table}`);
      await db().exec(`DROP TABLE IF EXISTS bridge_cursors_${table}`);
      await db().exec(`CREATE TABLE ${table} (${serial(kind)}, v varchar(40))`);
      const out = path.join(dir, `${table}.ndjson`);
      const args = ['tail', db().url(table, 'cursor_id=k1&polling_interval_ms=10'), `file://${out}`, '--cursor-column', 'id', '--batch-size', '20', '--progress', 'none'];
      const total = 2000;
      let inserted = 0;
      const producer = (async () => {
        while (inserted < total) {
          await insertRows(db(), table, inserted, 100);
          inserted += 100;
          await sleep(25);
        }
      })();
      const savedPosition = async (): Promise<number> => {
        const saved = await db().rows(`SELECT last_value FROM bridge_cursors_${table} WHERE cursor_id = 'k1'`).catch(() => []);
        return saved.length ? Number(/^int:(\d+)$/.exec(JSON.parse(String(saved[0]!.last_value)).value as string)![1]) : 0;
      };
      const first = spawnBridge(args);
      // Killed once it has saved a position (the first comes once the first windows close, 100-300 ms in).
      await waitFor(async () => ids(out).length >= 400 && (await savedPosition()) > 0);
      first.kill('SIGKILL');
      await first;
      const seenBeforeKill = ids(out).length;
      const savedAt = await savedPosition();
      const second = spawnBridge(args);
      await producer;
      await waitFor(async () => new Set(ids(out)).size >= total, 30_000);
      second.kill('SIGTERM');
      expect((await second).exitCode).toBe(0);
      const got = ids(out);
      expect(new Set(got).size).toBe(total);
      expect(Math.max(...got)).toBe(total);
      const duplicates = got.length - new Set(got).size;
      // The first run saved positions as it went, and the restart resumed from the saved one: only rows
      // above it that the first run had written come again (how many depends on how far the frontier
      // trailed the reads when the kill came: the windows still waiting for transactions to end).
      expect(duplicates).toBeLessThanOrEqual(seenBeforeKill - savedAt);
      expect(seenBeforeKill).toBeGreaterThanOrEqual(savedAt);
    });
  });
}

describe('tail --exit-when-drained', () => {
  it('exits 0 once a poll finds nothing new (cron)', async () => {
    const db = dbs[2]!;
    await db.exec(`DROP TABLE IF EXISTS t_drained`);
    await db.exec(`CREATE TABLE t_drained (id INTEGER PRIMARY KEY, v TEXT)`);
    await db.exec(`INSERT INTO t_drained (v) VALUES ('a'), ('b')`);
    const r = await bridge(['tail', db.url('t_drained', 'cursor_id=d1'), '-', '--cursor-column', 'id', '--exit-when-drained', '-q']);
    expect(r.exitCode).toBe(0);
    expect(parseLines(r.stdout)).toHaveLength(2);
    const again = await bridge(['tail', db.url('t_drained', 'cursor_id=d1'), '-', '--cursor-column', 'id', '--exit-when-drained', '-q']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe('');
  });

  it('refuses to tail a table it could only read once, naming --cursor-column', async () => {
    const r = await bridge(['tail', dbs[2]!.url('t_drained'), '-']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--cursor-column');
  });
});
