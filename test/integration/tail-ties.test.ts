import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bridge, readWholeLines, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Seen in CI (tail-race-updates, SQLite, 1 row of 442): two writers stamped the same millisecond;
 * the row with the larger key committed, the tail read it and moved to (value, key); the row with
 * the smaller key committed after — below that position, its version lost for good. SQLite lists
 * no open transactions, so the rows of the highest value read are read again at each poll.
 */
const dir = tempDir();
let lite: TestDb;
const file = path.join(dir, 'ties.db');
beforeAll(() => {
  lite = sqlite(file);
});
afterAll(async () => {
  await lite.close();
});

it('SQLite tail by mtime: a row committed after a read with the same mtime and a smaller key is delivered, and a re-run repeats nothing', async () => {
  await lite.exec("DROP TABLE IF EXISTS ties; CREATE TABLE ties (id INTEGER PRIMARY KEY, v TEXT, mtime TEXT NOT NULL); INSERT INTO ties VALUES (5, 'five', '2026-11-25 10:00:00.001')");
  const out = path.join(dir, 'ties.ndjson');
  const args = ['tail', `sqlite://${file}?table=ties&cursor_id=t&polling_interval_ms=20`, `file://${out}`, '--cursor-column', 'mtime', '--progress', 'none'];
  const p = spawnBridge(args);
  const ids = () => (readWholeLines(out) as { id: number }[]).map((r) => r.id);
  await waitFor(async () => ids().includes(5), 20_000, 20);
  await lite.exec("INSERT INTO ties VALUES (3, 'three', '2026-11-25 10:00:00.001')");
  await waitFor(async () => ids().includes(3), 5_000, 20).catch(() => undefined);
  await lite.exec("INSERT INTO ties VALUES (7, 'seven', '2026-11-25 10:00:00.002')");
  await waitFor(async () => ids().includes(7), 5_000, 20).catch(() => undefined);
  p.kill('SIGTERM');
  expect((await p).exitCode).toBe(0);
  expect(ids()).toEqual([5, 3, 7]);
  // The saved position is the one read: a re-run repeats nothing.
  const again = await bridge([...args, '--exit-when-drained']);
  expect(again.exitCode, again.stderr).toBe(0);
  expect(ids()).toEqual([5, 3, 7]);
});
