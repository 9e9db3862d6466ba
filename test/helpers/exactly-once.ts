import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { ROOT, spawnBridge } from './bridge.js';
import { MARIADB_URL, PG_URL, type TestDb } from './databases.js';

/** Issue 28's proof (test/faults/exactly-once*.test.ts): kills, writers, and what the sink must hold. */
export const KILLS = Number(process.env.BRIDGE_FAULT_KILLS ?? 20);
export const SECONDS = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export type Kind = 'postgres' | 'mariadb' | 'sqlite';

export const SOURCE_DDL: Record<Kind, (t: string) => string> = {
  postgres: (t) => `CREATE TABLE ${t} (id bigserial PRIMARY KEY, w int NOT NULL, v int NOT NULL DEFAULT 0, note text DEFAULT 'x')`,
  mariadb: (t) => `CREATE TABLE ${t} (id bigint AUTO_INCREMENT PRIMARY KEY, w int NOT NULL, v int NOT NULL DEFAULT 0, mtime datetime(6) DEFAULT now(6), note text DEFAULT 'x')`,
  sqlite: (t) => `CREATE TABLE ${t} (id INTEGER PRIMARY KEY AUTOINCREMENT, w int NOT NULL, v int NOT NULL DEFAULT 0, mtime TEXT, note text DEFAULT 'x')`,
};
// The sink has no key: a row delivered twice stays twice.
export const SINK_DDL: Record<Kind, (t: string) => string> = {
  postgres: (t) => `CREATE TABLE ${t} (id bigint, w int, v int, note text)`,
  mariadb: (t) => `CREATE TABLE ${t} (id bigint, w int, v int, note text)`,
  sqlite: (t) => `CREATE TABLE ${t} (id INTEGER, w int, v int, note text)`,
};

/** Writers whose transactions take their ids in one order and commit in another; a tenth of PostgreSQL's roll back. */
export function writers(kind: Kind, table: string, dir: string, sqliteFile: string): Promise<unknown> {
  if (kind === 'postgres') {
    const script = path.join(dir, `${table}.pgbench`);
    writeFileSync(
      script,
      `\\set r random(1, 10)\nBEGIN;\nSELECT pg_sleep(random() * 0.01);\nINSERT INTO ${table} (w) VALUES (:client_id);\nSELECT pg_sleep(random() * 0.02);\n\\if :r = 1\nROLLBACK;\n\\else\nCOMMIT;\n\\endif\n`,
    );
    return execa('pgbench', ['-n', '-c', '4', '-j', '2', '-T', String(SECONDS), '-f', script, PG_URL]);
  }
  const target = kind === 'sqlite' ? sqliteFile : MARIADB_URL.replace(/^mariadb:/, 'mysql:');
  return execa('node', [path.join(ROOT, 'test/helpers/race-writer.mjs'), kind, target, table, kind === 'sqlite' ? '2' : '4', String(SECONDS)]);
}

/** md5 of the rows ordered by id, and the ids (to count what is missing and what came twice). */
export async function content(db: TestDb, table: string): Promise<{ md5: string; ids: number[] }> {
  const rows = await db.rows(`SELECT id, w, v, note FROM ${table} ORDER BY id`);
  const text = rows.map((r) => [r.id, r.w, r.v, r.note].map(String).join('|')).join('\n');
  return { md5: createHash('md5').update(text).digest('hex'), ids: rows.map((r) => Number(r.id)) };
}

/** Runs `args` again and again, SIGKILLing at random moments, until the writers are done and KILLS kills happened. */
export async function killLoop(args: string[], writing: Promise<unknown>): Promise<{ kills: number; runs: number }> {
  let done = false;
  void writing.finally(() => (done = true));
  let kills = 0;
  let runs = 0;
  while (!done || kills < KILLS) {
    runs++;
    const p = spawnBridge(args);
    const ended = await Promise.race([p.then(() => true), sleep(80 + Math.random() * 700).then(() => false)]);
    if (!ended) {
      p.kill('SIGKILL');
      await p;
      kills++;
      continue;
    }
    const out = await p;
    expect(out.exitCode, String(out.stderr)).toBe(0);
    expect(String(out.stderr)).not.toMatch(/re-sends that batch|duplicate/);
  }
  await writing;
  return { kills, runs };
}
/** A change log's rows (payload: a row's JSON at each insert and update) against the source: each version 0..v of each row once. */
export async function changeLog(want: Record<string, unknown>[], log: Record<string, unknown>[], from = 0): Promise<{ lost: number; duplicates: number; changes: number; versions: number }> {
  const got = new Map<string, number>();
  for (const r of log) {
    const p = JSON.parse(Buffer.isBuffer(r.payload) ? r.payload.toString('utf8') : String(r.payload)) as { id: number | string; v: number | string };
    const k = `${String(p.id)}@${String(p.v)}`;
    got.set(k, (got.get(k) ?? 0) + 1);
  }
  let lost = 0;
  let changes = 0;
  for (const r of want) for (let v = from; v <= Number(r.v); v++, changes++) if (!got.has(`${String(r.id)}@${v}`)) lost++;
  return { lost, duplicates: [...got.values()].reduce((n, c) => n + c - 1, 0), changes, versions: got.size };
}
