import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, waitFor } from '../helpers/bridge.js';
import { sqlite } from '../helpers/databases.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/** bridge copy of 200k rows inside a real terminal (tmux): what the screen shows while it runs and at the end. */
describe.skipIf(!hasTmux)('the live view in a terminal (tmux)', () => {
  it('draws the view while copying and leaves the summary line', async () => {
    const dir = tempDir();
    const db = sqlite(path.join(dir, 'tty.db'));
    await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT)');
    await db.exec("WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 200000) INSERT INTO ev SELECT i, 'value ' || i FROM g");
    await db.close();
    const session = `bridge-test-${process.pid}`;
    // A terminal outside CI: under CI=true, auto prints plain lines (the runner keeps a log).
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION NO_COLOR=1 node ${BIN} copy 'sqlite://${dir}/tty.db?table=ev' 'file://${dir}/out.ndjson' --batch-size 5 --read-ahead 1; echo EXIT=$?; sleep 60`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '150', '-y', '30', cmd]);
    const screen = (): string => execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
    try {
      const running = await waitFor(async () => {
        const s = screen();
        return /\[running\]/.test(s) && /rows\/s now/.test(s) ? s : undefined;
      }, 30_000, 50);
      expect(running).toContain('bridge copy snapshot, every row as a JSON object, paged by id');
      expect(running).toMatch(/█*░*\s+[\d.]+% of ~200,000/);
      expect(running).toMatch(/source pool \d+ in use/);
      const done = await waitFor(async () => (/EXIT=\d+/.test(screen()) ? screen() : undefined), 60_000, 100);
      expect(done).toContain('EXIT=0');
      expect(done).toMatch(/bridge copy: done: 200,000 rows in [\d.]+ s/);
      // The last frame shows the final state, then the summary line.
      expect(done).toContain('bridge copy snapshot, every row as a JSON object, paged by id [done]');
      expect(done).toMatch(/200,000 rows · [\d.]+ MB/);
      expect(done).not.toContain('[running]');
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
    }
  });

  it('under CI=true, auto prints plain lines even on a terminal; --progress tty still draws the view', async () => {
    const dir = tempDir();
    const db = sqlite(path.join(dir, 'ci.db'));
    await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT)');
    await db.exec("WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 50000) INSERT INTO ev SELECT i, 'v' || i FROM g");
    await db.close();
    const session = `bridge-ci-${process.pid}`;
    // Long enough (10k batches) that the view is up before the copy ends: a job done in a blink prints only its summary.
    const run = (extra: string, out: string): string => `CI=true NO_COLOR=1 node ${BIN} copy 'sqlite://${dir}/ci.db?table=ev' 'file://${dir}/${out}' --batch-size 5 --read-ahead 1 ${extra}; echo EXIT=$?`;
    const cmd = `${run('', 'a.ndjson')}; echo ---; ${run('--progress tty', 'b.ndjson')}; sleep 60`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '150', '-y', '40', cmd]);
    try {
      const screen = await waitFor(async () => {
        const s = execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
        return (s.match(/EXIT=\d+/g) ?? []).length === 2 ? s : undefined;
      }, 30_000, 100);
      const [plain, live] = screen.split('---');
      expect(plain).toContain('EXIT=0');
      expect(plain).toMatch(/bridge copy: done: 50,000 rows/);
      expect(plain).not.toContain('[done]');
      expect(live).toContain('paged by id [done]');
      expect(live).toMatch(/bridge copy: done: 50,000 rows/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
    }
  });

  it('several routes share one view, a row per route, then the total line', async () => {
    const dir = tempDir();
    const db = sqlite(path.join(dir, 'many.db'));
    for (const t of ['first', 'second', 'third']) {
      await db.exec(`CREATE TABLE ${t} (id INTEGER PRIMARY KEY, v TEXT)`);
      await db.exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 30000) INSERT INTO ${t} SELECT i, 'v' || i FROM g`);
    }
    await db.close();
    const session = `bridge-board-${process.pid}`;
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION NO_COLOR=1 node ${BIN} copy 'sqlite://${dir}/many.db?table=*' 'sqlite://${dir}/copy.db?columns=auto&auto_create_table=true' --batch-size 5 --read-ahead 1 --parallel 2; echo EXIT=$?; sleep 60`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '150', '-y', '30', cmd]);
    const screen = (): string => execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
    try {
      const running = await waitFor(async () => {
        const s = screen();
        return /first\s+running/.test(s) && /second\s+running/.test(s) ? s : undefined;
      }, 30_000, 50);
      expect(running).toMatch(/bridge copy 3 routes · \d finished/);
      expect(running).toMatch(/third\s+waiting to start/);
      const done = await waitFor(async () => (/EXIT=\d+/.test(screen()) ? screen() : undefined), 90_000, 100);
      expect(done).toContain('EXIT=0');
      for (const t of ['first', 'second', 'third']) expect(done).toMatch(new RegExp(`${t}\\s+done\\s+30,000 rows`));
      expect(done).toMatch(/bridge copy: 3 tables: 3 done; 90,000 rows/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
    }
  });
});
