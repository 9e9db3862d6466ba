import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridge, spawnBridge, started, tempDir } from '../helpers/bridge.js';
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
    await db.exec("WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 60000) INSERT INTO ev SELECT i, 'value ' || i FROM g");
    await db.close();
    const r = await bridge(['copy', `sqlite://${src}?table=ev`, `sqlite://${dir}/a.db?table=ev&columns=auto&auto_create_table=true`, '--batch-size', '5', '--progress', 'plain', '--progress-interval', '100']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/done: 60,000 rows/);
    expect(r.stderr.split('\n').filter((l) => / rows\/s \(avg /.test(l)).length).toBeGreaterThanOrEqual(2);

    const p = spawnBridge(['copy', `sqlite://${src}?table=ev`, `sqlite://${dir}/b.db?table=ev&columns=auto&auto_create_table=true`, '--batch-size', '5', '--progress', 'none']);
    await started(p);
    await new Promise((res) => setTimeout(res, 700));
    p.kill('SIGTERM');
    const stopped = await p;
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stderr).toMatch(/bridge copy: stopped: [\d,]+ rows/);
    expect(stopped.stderr).not.toMatch(/60,000 rows/);
  }, 60_000);
});
