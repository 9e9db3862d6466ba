import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, bridge, readWholeLines, spawnBridge, tempDir } from '../helpers/bridge.js';
import { MARIADB_URL, mysqlLike, PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { kindsOfThisPhase } from '../helpers/phase.js';

/**
 * Issue 26: a tail by a time cursor under writers that UPDATE rows already delivered, as well as
 * insert, with transactions of random length (pgbench on PostgreSQL), with and without SIGKILLs of
 * the tail. Every row's last version must arrive: the last line for each id in the file equals the
 * row in the table at the end. Before the fix, versions that committed late while an older version
 * was delivered and a window was open were counted as delivered and lost for good.
 */
const dir = tempDir();
let dbs: Record<string, TestDb>;
const SECONDS = Number(process.env.BRIDGE_RACE_SECONDS ?? 6);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dbs = { postgres: await postgres(), mariadb: await mysqlLike('mariadb'), sqlite: sqlite(path.join(dir, 'race.db')) };
});
afterAll(async () => {
  for (const d of Object.values(dbs)) await d.close();
});

const DDL: Record<string, (t: string) => string> = {
  postgres: (t) => `CREATE TABLE ${t} (id bigserial PRIMARY KEY, w int NOT NULL, v int NOT NULL DEFAULT 0, mtime timestamptz NOT NULL DEFAULT now())`,
  mariadb: (t) => `CREATE TABLE ${t} (id bigint AUTO_INCREMENT PRIMARY KEY, w int NOT NULL, v int NOT NULL DEFAULT 0, mtime datetime(6) NOT NULL DEFAULT now(6))`,
  sqlite: (t) => `CREATE TABLE ${t} (id INTEGER PRIMARY KEY AUTOINCREMENT, w int NOT NULL, v int NOT NULL DEFAULT 0, mtime TEXT NOT NULL)`,
};

function writers(kind: string, table: string): Promise<unknown> {
  if (kind === 'postgres') {
    const script = path.join(dir, `${table}.pgbench`);
    writeFileSync(
      script,
      // Updates go to 30 hot rows, and a few transactions sleep long inside: late versions of rows just delivered.
      `\\set r random(1, 100000)\nBEGIN;\nSELECT pg_sleep(random() * 0.01);\nINSERT INTO ${table} (w) SELECT :client_id WHERE :r % 2 = 0 OR NOT EXISTS (SELECT 1 FROM ${table});\n` +
        `UPDATE ${table} SET v = v + 1, mtime = now() WHERE :r % 2 = 1 AND id = (SELECT 1 + (:r % LEAST(30, max(id))) FROM ${table});\nSELECT pg_sleep(CASE WHEN :r % 10 = 1 THEN 0.3 ELSE random() * 0.01 END);\nCOMMIT;\n`,
    );
    return execa('pgbench', ['-n', '-c', '6', '-j', '2', '-T', String(SECONDS), '-f', script, PG_URL]);
  }
  const target = kind === 'sqlite' ? path.join(dir, 'race.db') : MARIADB_URL.replace(/^mariadb:/, 'mysql:');
  return execa('node', [path.join(ROOT, 'test/helpers/race-writer.mjs'), kind, target, table, kind === 'sqlite' ? '4' : '6', String(SECONDS), 'updates']);
}

for (const kind of kindsOfThisPhase(['postgres', 'mariadb', 'sqlite'] as const))
  for (const kills of [0, 2])
    describe(`${kind}: cursor_column=mtime under writers that update delivered rows`, () => {
      it(`${kills} SIGKILLs of the tail, then a drain: every row's last version arrives`, async () => {
        const db = dbs[kind]!;
        const table = `t_race_upd_${kind}_${kills}`;
        await db.exec(`DROP TABLE IF EXISTS ${table}`);
        await db.exec(`DROP TABLE IF EXISTS bridge_cursors_${table}`);
        await db.exec(DDL[kind]!(table));
        const out = path.join(dir, `${table}.ndjson`);
        const url = db.url(table, 'cursor_id=race&polling_interval_ms=20');
        const args = ['tail', url, `file://${out}`, '--cursor-column', 'mtime', '--batch-size', '50', '--progress', 'none'];
        const writing = writers(kind, table);
        for (let i = 0; i < kills; i++) {
          const p = spawnBridge(args);
          await sleep(800 + Math.random() * (SECONDS * 300));
          p.kill('SIGKILL');
          await p.catch(() => {});
        }
        const p = spawnBridge(args);
        await writing;
        await sleep(500);
        p.kill('SIGTERM');
        expect((await p).exitCode).toBe(0);
        const drain = await bridge(['copy', url, `file://${out}`, '--cursor-column', 'mtime', '--progress', 'none']);
        expect(drain.exitCode, drain.stderr).toBe(0);

        const rows = await db.rows(`SELECT id, v FROM ${table}`);
        const last = new Map<number, number>();
        for (const r of readWholeLines(out) as { id: number; v: number }[]) last.set(Number(r.id), Number(r.v));
        const wrong = rows.filter((r) => last.get(Number(r.id)) !== Number(r.v)).map((r) => `${String(r.id)}: v=${String(r.v)}, last delivered ${String(last.get(Number(r.id)))}`);
        const updated = rows.filter((r) => Number(r.v) > 0).length;
        console.log(`race-updates ${kind}, ${kills} kills: ${rows.length} rows, ${updated} updated at least once, ${wrong.length} whose last version did not arrive`);
        expect(rows.length).toBeGreaterThan(50);
        expect(updated).toBeGreaterThan(10);
        expect(wrong).toEqual([]);
      }, 120_000);
    });
