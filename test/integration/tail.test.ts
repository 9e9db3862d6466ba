import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { sqlite, type TestDb } from '../helpers/databases.js';

/** tail's command-line behaviour (the per-kind tail scenarios are in test/conformance/tail.test.ts). */
const dir = tempDir();
let db: TestDb;
beforeAll(() => {
  db = sqlite(path.join(dir, 'tail.db'));
});
afterAll(async () => db.close());

describe('tail --exit-when-drained', () => {
  it('exits 0 once a poll finds nothing new (cron)', async () => {
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
    const r = await bridge(['tail', db.url('t_drained'), '-']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--cursor-column');
  });
});
