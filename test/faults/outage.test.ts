import { execFileSync, execSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { record } from './report.js';

/**
 * Issue 7, the database goes away: PostgreSQL (then MariaDB) is stopped for 10 s in the middle of a
 * tail, on the source side and on the sink side, then started again. The tail resumes on its own,
 * loses nothing, and its plain log says what happened.
 */
const dir = tempDir();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pgVersion = execSync('ls /etc/postgresql').toString().trim().split('\n').pop()!;

const servers = {
  postgres: {
    stop: () => execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', pgVersion, 'main', 'stop', '-m', 'fast']),
    start: () => execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', pgVersion, 'main', 'start']),
    open: () => postgres(),
  },
  mariadb: {
    stop: () => execFileSync('mariadb-admin', ['-h', '127.0.0.1', '-u', 'root', 'shutdown']),
    // By its pid file: the binlog MariaDB of scripts/mariadb-binlog.sh (port 3307) runs the same executable, and --exec alone finds it "already running".
    start: () => execFileSync('start-stop-daemon', ['--start', '--oknodo', '--background', '--pidfile', '/run/mysqld/mysqld.pid', '--exec', '/usr/sbin/mariadbd', '--', '--user=mysql']),
    open: () => mysqlLike('mariadb'),
  },
};

async function reopen(kind: keyof typeof servers): Promise<TestDb> {
  return waitFor(async () => servers[kind].open().catch(() => undefined), 60_000, 500);
}

for (const kind of ['postgres', 'mariadb'] as const)
  for (const side of ['source', 'sink'] as const)
    describe(`${kind} stopped for 10 s on the ${side} side`, () => {
      it('the tail resumes on its own and loses nothing', async () => {
        const N = 3000;
        let db = await servers[kind].open();
        const lite = sqlite(path.join(dir, `${kind}-${side}.db`));
        const t = `t_out_${side}`;
        await db.exec(`DROP TABLE IF EXISTS ${t}`);
        await db.exec(`DROP TABLE IF EXISTS bridge_cursors_${t}`);
        await db.exec(`CREATE TABLE ${t} (id int PRIMARY KEY, v varchar(20))`);
        await lite.exec(`CREATE TABLE ${t} (id INTEGER PRIMARY KEY, v TEXT)`);
        const [srcDb, dstDb] = side === 'source' ? [db, lite] : [lite, db];
        const insert = async (d: TestDb, from: number, n: number) =>
          d.exec(`INSERT INTO ${t} VALUES ${Array.from({ length: n }, (_, i) => `(${from + i}, 'v${from + i}')`).join(',')}`);
        const p = spawnBridge([
          'tail',
          srcDb.url(t, `cursor_column=id&cursor_id=outage&polling_interval_ms=50`),
          dstDb.url(t, 'columns=auto&key=id'),
          '--batch-size',
          '100',
          '--progress',
          'plain',
          '--progress-interval',
          '1000',
        ]);
        let log = '';
        p.stderr!.on('data', (d: Buffer) => (log += d.toString()));
        const count = async (d: TestDb) => Number((await d.rows(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n);
        await insert(srcDb, 1, 1000);
        await waitFor(async () => (await count(dstDb)) >= 1000, 30_000);
        await db.close().catch(() => {});
        servers[kind].stop();
        // Rows keep coming on the side that stays up while the other is down, so the tail must write
        // during the outage (rows inserted before the stop could all be written before it).
        if (side === 'sink') await insert(srcDb, 1001, 1000);
        await sleep(10_000);
        servers[kind].start();
        db = await reopen(kind);
        const [s2, d2] = side === 'source' ? [db, lite] : [lite, db];
        if (side === 'source') await insert(s2, 1001, 1000);
        await insert(s2, 2001, 1000);
        await waitFor(async () => (await count(d2).catch(() => 0)) >= N, 60_000, 500);
        p.kill('SIGTERM');
        const r = await p;
        const ids = await d2.rows(`SELECT MIN(id) AS lo, MAX(id) AS hi, COUNT(*) AS n FROM ${t}`);
        await db.close();
        await lite.close();
        const retries = (log.match(/warning: retry \d+ in/g) ?? []).length;
        record({
          scenario: `outage: ${kind} down 10 s, ${side} side of a tail`,
          runs: 1,
          lost: N - Number(ids[0]!.n),
          duplicates: 0,
          outcome: `resumed by itself after ${retries} retries; exit ${r.exitCode}`,
        });
        expect(r.exitCode).toBe(0);
        expect(ids.map((x) => [Number(x.lo), Number(x.hi), Number(x.n)])).toEqual([[1, N, N]]);
        expect(retries).toBeGreaterThan(0);
        expect(log).toMatch(/retrying/);
      });
    });
