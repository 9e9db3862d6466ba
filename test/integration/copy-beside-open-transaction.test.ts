import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { mysqlLike, postgres, session, type Session, type TestDb } from '../helpers/databases.js';
import { kindsOfThisPhase } from '../helpers/phase.js';

/**
 * Issue 26: a nightly `copy` with cursor_id beside a transaction some other client left open.
 * A transaction that has written nothing cannot hide a row from the read, so it must not hold the
 * saved position back (it did: the copy saved "(start)" and every later run delivered the table
 * again, or was refused for duplicate keys). One that has written can: then the run says what holds
 * the position (with the session and its age) and the summary names only the position it saved.
 */
const dir = tempDir();
let dbs: Record<string, TestDb>;
beforeAll(async () => {
  dbs = { postgres: await postgres(), mariadb: await mysqlLike('mariadb') };
});
afterAll(async () => {
  for (const d of Object.values(dbs)) await d.close();
});

const SERIAL: Record<string, string> = { postgres: 'id serial PRIMARY KEY', mariadb: 'id int AUTO_INCREMENT PRIMARY KEY' };
const count = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;

for (const kind of kindsOfThisPhase(['postgres', 'mariadb'] as const))
  describe(`${kind}: copy with cursor_id beside another client's open transaction`, () => {
    async function table(t: string): Promise<void> {
      const db = dbs[kind]!;
      await db.exec(`DROP TABLE IF EXISTS ${t}`);
      await db.exec(`DROP TABLE IF EXISTS bridge_cursors_${t}`);
      await db.exec(`CREATE TABLE ${t} (${SERIAL[kind]}, v text)`);
      for (let i = 0; i < 10; i++) await db.exec(`INSERT INTO ${t} (v) VALUES ${Array.from({ length: 100 }, (_, j) => `('r${i * 100 + j}')`).join(', ')}`);
      await db.exec(`DROP TABLE IF EXISTS ${t}_other`);
      await db.exec(`CREATE TABLE ${t}_other (x int)`);
    }

    /** Row 1001 written by a transaction left open, 1002 committed, and another client writing to another table. */
    async function lateRowBesideWriter(t: string): Promise<{ late: Session; other: Session }> {
      await table(t);
      const late = await session(kind);
      await late.run('BEGIN');
      await late.run(`INSERT INTO ${t} (id, v) VALUES (1001, 'late')`);
      await dbs[kind]!.exec(`INSERT INTO ${t} (id, v) VALUES (1002, 'early')`);
      const other = await session(kind);
      await other.run('BEGIN');
      await other.run(`INSERT INTO ${t}_other VALUES (1)`);
      return { late, other };
    }

    it('an idle read-only transaction: the copy saves the end, and the nightly re-run delivers nothing and exits 0', async () => {
      const db = dbs[kind]!;
      const t = `t_beside_idle_${kind}`;
      await table(t);
      const other = await session(kind);
      await other.run('BEGIN');
      await other.run(`SELECT * FROM ${t}_other`);
      const out = path.join(dir, `${t}.ndjson`);
      const args = ['copy', db.url(t, 'cursor_id=nightly'), `file://${out}`, '--cursor-column', 'id', '--progress', 'none'];
      const first = await bridge(args);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/checkpoint nightly .* at id=1000/);
      const second = await bridge(args);
      await other.run('COMMIT');
      await other.close();
      expect(second.exitCode, second.stderr).toBe(0);
      expect(count(out)).toBe(1000);
    }, 60_000);

    it('4 --partition parts at once beside an idle read-only transaction: each saves its end, and each re-run delivers nothing', async () => {
      const db = dbs[kind]!;
      const t = `t_beside_parts_${kind}`;
      await table(t);
      for (let i = 0; i < 4; i++) await db.exec(`INSERT INTO ${t} (v) SELECT v FROM ${t} LIMIT 1000`);
      const other = await session(kind);
      await other.run('BEGIN');
      await other.run(`SELECT * FROM ${t}_other`);
      const part = (k: number) => ['copy', db.url(t, 'cursor_id=nightly'), `file://${path.join(dir, `${t}.${k}.ndjson`)}`, '--cursor-column', 'id', '--partition', `${k}/4`, '--batch-size', '50', '--progress', 'none'];
      // The parts read at the same time: each one's statements are running while the others list open transactions.
      const first = await Promise.all([0, 1, 2, 3].map((k) => bridge(part(k))));
      for (const r of first) {
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stderr).not.toMatch(/not saved past/);
      }
      const again = await Promise.all([0, 1, 2, 3].map((k) => bridge(part(k))));
      await other.run('COMMIT');
      await other.close();
      for (const r of again) expect(r.exitCode, r.stderr).toBe(0);
      const total = [0, 1, 2, 3].reduce((n, k) => n + count(path.join(dir, `${t}.${k}.ndjson`)), 0);
      expect(total).toBe(5000);
    }, 120_000);

    it('a writing transaction that commits while the copy waits for it: the copy saves its end (the wait lists open transactions again, not the listing it had)', async () => {
      const db = dbs[kind]!;
      const t = `t_beside_commits_${kind}`;
      await table(t);
      const other = await session(kind);
      await other.run('BEGIN');
      await other.run(`INSERT INTO ${t}_other VALUES (1)`);
      const out = path.join(dir, `${t}.ndjson`);
      const run = bridge(['copy', db.url(t, 'cursor_id=nightly'), `file://${out}`, '--cursor-column', 'id', '--progress', 'none']);
      // The copy has read its 1,000 rows and waits (up to 2 s) for the transactions open then.
      await new Promise((r) => setTimeout(r, 1500));
      await other.run('COMMIT');
      await other.close();
      const r = await run;
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/not saved past/);
      expect(r.stderr).toMatch(/checkpoint nightly .* at id=1000/);
    }, 60_000);

    it('a row committed late while another client keeps writing: the next copy delivers it (visible, though the position still waits), and the one after delivers nothing', async () => {
      const db = dbs[kind]!;
      const t = `t_beside_late_${kind}`;
      const { late, other } = await lateRowBesideWriter(t);
      const out = path.join(dir, `${t}.ndjson`);
      const copy = () => bridge(['copy', db.url(t, 'cursor_id=nightly'), `file://${out}`, '--cursor-column', 'id', '--progress', 'none']);
      const first = await copy();
      expect(first.exitCode, first.stderr).toBe(0);
      expect(count(out)).toBe(1001);
      await late.run('COMMIT');
      await late.close();
      // The other client still writes: the position cannot pass 1001's place, but the row is there to read.
      const second = await copy();
      expect(second.exitCode, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/not saved past/);
      expect(count(out)).toBe(1002);
      await other.run('ROLLBACK');
      await other.close();
      const third = await copy();
      expect(third.exitCode, third.stderr).toBe(0);
      expect(third.stderr).not.toMatch(/not saved past/);
      const ids = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: number }).id);
      expect(ids).toHaveLength(1002);
      expect(new Set(ids).size).toBe(1002);
    }, 60_000);

    it('a tail kept waiting by another client\'s writing transaction delivers a row committed late within seconds, and once only', async () => {
      const db = dbs[kind]!;
      const t = `t_beside_tail_${kind}`;
      const { late, other } = await lateRowBesideWriter(t);
      const out = path.join(dir, `${t}.ndjson`);
      const args = ['tail', db.url(t, 'cursor_id=live&polling_interval_ms=100'), `file://${out}`, '--cursor-column', 'id', '--progress', 'none'];
      const p = spawnBridge(args);
      await waitFor(async () => existsSync(out) && count(out) === 1001, 20_000);
      await late.run('COMMIT');
      await late.close();
      await waitFor(async () => count(out) === 1002, 20_000);
      p.kill('SIGTERM');
      expect((await p).exitCode).toBe(0);
      await other.run('ROLLBACK');
      await other.close();
      const again = await bridge(['copy', ...args.slice(1, 5), '--progress', 'none']);
      expect(again.exitCode, again.stderr).toBe(0);
      const ids = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: number }).id);
      expect(new Set(ids).size).toBe(1002);
      expect(ids).toHaveLength(1002);
    }, 60_000);

    it('a transaction that has written: the copy says what holds the position (session, age) and claims no position it did not save', async () => {
      const db = dbs[kind]!;
      const t = `t_beside_writer_${kind}`;
      await table(t);
      const other = await session(kind);
      await other.run('BEGIN');
      await other.run(`INSERT INTO ${t}_other VALUES (1)`);
      const out = path.join(dir, `${t}.ndjson`);
      const r = await bridge(['copy', db.url(t, 'cursor_id=nightly'), `file://${out}`, '--cursor-column', 'id', '--progress', 'none']);
      await other.run('ROLLBACK');
      await other.close();
      expect(r.exitCode, r.stderr).toBe(0);
      expect(count(out)).toBe(1000);
      expect(r.stderr).toMatch(/not saved past .*: .*open for \d+ s/);
      expect(r.stderr).not.toMatch(/checkpoint nightly .* at id=1000/);
    }, 60_000);
  });
