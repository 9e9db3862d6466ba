import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bridge, spawnBridge, tempDir } from '../helpers/bridge.js';
import { sqlite } from '../helpers/databases.js';

/**
 * SQLite → SQLite runs on synchronous driver calls: every await resolves at once, and a copy that
 * never gives the event loop a turn shows no progress, draws no view and hears no SIGTERM until
 * it ends (found with the multi-route view, which never came up during such a copy).
 */
describe('a copy between two SQLite files gives the event loop its turns', () => {
  const dir = tempDir();
  const src = path.join(dir, 'src.db');

  it('prints progress lines while it runs, and stops on SIGTERM part-way', async () => {
    const db = sqlite(src);
    await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT)');
    await db.exec("WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 300000) INSERT INTO ev SELECT i, 'value ' || i FROM g");
    await db.close();
    const r = await bridge(['copy', `sqlite://${src}?table=ev`, `sqlite://${dir}/a.db?table=ev&columns=auto&auto_create_table=true`, '--batch-size', '5', '--progress', 'plain', '--progress-interval', '100']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/done: 300,000 rows/);
    expect(r.stderr.split('\n').filter((l) => / rows\/s \(avg /.test(l)).length).toBeGreaterThanOrEqual(2);

    const p = spawnBridge(['copy', `sqlite://${src}?table=ev`, `sqlite://${dir}/b.db?table=ev&columns=auto&auto_create_table=true`, '--batch-size', '5', '--progress', 'plain', '--progress-interval', '100']);
    // Signalled once it shows progress: part-way, however fast this machine copies.
    await new Promise<void>((res) => p.stderr!.on('data', (d: Buffer) => /copy: [1-9][\d,]* rows, .* rows\/s \(avg /.test(String(d)) && res()));
    p.kill('SIGTERM');
    const stopped = await p;
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stderr).toMatch(/bridge copy: stopped: [\d,]+ rows/);
    expect(stopped.stderr).not.toMatch(/300,000 rows/);
  }, 60_000);

  it('a sink file another process is reading (rollback journal) is written once the reader lets go', async () => {
    const sink = path.join(dir, 'journal.db');
    const db = sqlite(src);
    await db.close();
    const target = sqlite(sink);
    await target.exec("PRAGMA journal_mode = DELETE; CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO ev VALUES (0, 'seed')");
    await target.close();
    // A reader holds a shared lock for 2 s: the copy's COMMIT must wait for it, not fail.
    const reader = spawn('python3', ['-c', `import sqlite3, time\nc = sqlite3.connect(${JSON.stringify(sink)}, isolation_level=None)\nc.execute('BEGIN')\nc.execute('SELECT * FROM ev').fetchall()\nprint('reading', flush=True)\ntime.sleep(2)\nc.execute('COMMIT')`]);
    await new Promise<void>((res) => reader.stdout.once('data', () => res()));
    const r = await bridge(['copy', `sqlite://${src}?table=ev`, `sqlite://${sink}?table=ev&columns=auto`, '--batch-size', '1500', '--limit', '3000', '-q']);
    expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
    const after = sqlite(sink);
    expect(await after.rows('SELECT COUNT(*) AS n FROM ev')).toEqual([{ n: 3001n }]);
    await after.close();
  }, 60_000);
});
