import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, ROOT, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { MARIADB_URL, PG_URL, mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { record } from './report.js';

/**
 * Issue 28, the proof: each route kind is SIGKILLed at random moments (start-up, reads, inside a
 * COPY, inside the commit) while writers insert into the source with transactions that commit out
 * of order (and some that roll back: gaps). Each run is restarted at once; once the writers stop,
 * one run drains the rest. The sink table has no key (duplicates would stay) and no key= is given:
 * every source row must be there exactly once, equal by md5 of the ordered rows.
 * EO_SINK_EXTRA='&position_table=none' shows the tests fail without the sink's position (duplicates).
 */
const KILLS = Number(process.env.BRIDGE_FAULT_KILLS ?? 20);
const SECONDS = 8;
const dir = tempDir('exactly-once-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Kind = 'postgres' | 'mariadb' | 'sqlite';
let dbs: Record<Kind, TestDb>;
const sqliteFile = path.join(dir, 'eo.db');

beforeAll(async () => {
  dbs = { postgres: await postgres(), mariadb: await mysqlLike('mariadb'), sqlite: sqlite(sqliteFile) };
});
afterAll(async () => {
  for (const db of Object.values(dbs)) await db.close();
});

const SOURCE_DDL: Record<Kind, (t: string) => string> = {
  postgres: (t) => `CREATE TABLE ${t} (id bigserial PRIMARY KEY, w int NOT NULL, v int NOT NULL DEFAULT 0, note text DEFAULT 'x')`,
  mariadb: (t) => `CREATE TABLE ${t} (id bigint AUTO_INCREMENT PRIMARY KEY, w int NOT NULL, v int NOT NULL DEFAULT 0, mtime datetime(6) DEFAULT now(6), note text DEFAULT 'x')`,
  sqlite: (t) => `CREATE TABLE ${t} (id INTEGER PRIMARY KEY AUTOINCREMENT, w int NOT NULL, v int NOT NULL DEFAULT 0, mtime TEXT, note text DEFAULT 'x')`,
};
// The sink has no key: a row delivered twice stays twice.
const SINK_DDL: Record<Kind, (t: string) => string> = {
  postgres: (t) => `CREATE TABLE ${t} (id bigint, w int, v int, note text)`,
  mariadb: (t) => `CREATE TABLE ${t} (id bigint, w int, v int, note text)`,
  sqlite: (t) => `CREATE TABLE ${t} (id INTEGER, w int, v int, note text)`,
};

/** Writers whose transactions take their ids in one order and commit in another; a tenth of PostgreSQL's roll back. */
function writers(kind: Kind, table: string): Promise<unknown> {
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
async function content(db: TestDb, table: string): Promise<{ md5: string; ids: number[] }> {
  const rows = await db.rows(`SELECT id, w, v, note FROM ${table} ORDER BY id`);
  const text = rows.map((r) => [r.id, r.w, r.v, r.note].map(String).join('|')).join('\n');
  return { md5: createHash('md5').update(text).digest('hex'), ids: rows.map((r) => Number(r.id)) };
}

interface Route {
  from: Kind;
  to: Kind;
  mode: 'copy' | 'tail';
}

const ROUTES: Route[] = [
  { from: 'postgres', to: 'postgres', mode: 'copy' },
  { from: 'mariadb', to: 'postgres', mode: 'copy' },
  { from: 'sqlite', to: 'mariadb', mode: 'copy' },
  { from: 'postgres', to: 'sqlite', mode: 'tail' },
];

/** Runs `args` again and again, SIGKILLing at random moments, until the writers are done and KILLS kills happened. */
async function killLoop(args: string[], writing: Promise<unknown>): Promise<{ kills: number; runs: number }> {
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

describe('exactly once: SIGKILL at random moments under concurrent writers, no key on the sink', () => {
  for (const r of ROUTES)
    it(`${r.from} → ${r.to}, ${r.mode} with cursor_id`, async () => {
      const src = dbs[r.from];
      const dst = dbs[r.to];
      const t = `eo_${r.from.slice(0, 2)}_${r.to.slice(0, 2)}_${r.mode}`;
      for (const sql of [`DROP TABLE IF EXISTS ${t}_src`, `DROP TABLE IF EXISTS bridge_cursors_${t}_src`, SOURCE_DDL[r.from](`${t}_src`)]) await src.exec(sql);
      for (const sql of [`DROP TABLE IF EXISTS ${t}_dst`, 'DROP TABLE IF EXISTS bridge_positions', SINK_DDL[r.to](`${t}_dst`)]) await dst.exec(sql);
      await src.exec(`INSERT INTO ${t}_src (w) VALUES (0)`);
      const args = [
        r.mode,
        src.url(`${t}_src`, 'cursor_id=eo&polling_interval_ms=20'),
        dst.url(`${t}_dst`, `columns=auto${process.env.EO_SINK_EXTRA ?? ''}`),
        '--cursor-column',
        'id',
        '--batch-size',
        String(50 + Math.floor(Math.random() * 400)),
        '-q',
      ];
      const { kills, runs } = await killLoop(args, writers(r.from, `${t}_src`));
      const drain = await bridge(['copy', ...args.slice(1)]);
      expect(drain.exitCode, drain.stderr).toBe(0);
      const a = await content(src, `${t}_src`);
      const b = await content(dst, `${t}_dst`);
      const distinct = new Set(b.ids);
      const lost = a.ids.filter((id) => !distinct.has(id)).length;
      const duplicates = b.ids.length - distinct.size;
      record({ scenario: `exactly once ${r.from} → ${r.to} ${r.mode}`, runs: kills, lost, duplicates, outcome: lost === 0 && duplicates === 0 && a.md5 === b.md5 ? 'exactly once' : 'NOT EXACTLY ONCE' });
      console.log(`exactly once ${r.from} → ${r.to} ${r.mode}: ${a.ids.length} rows, ${kills} kills in ${runs} runs, lost ${lost}, duplicates ${duplicates}`);
      expect(kills).toBeGreaterThanOrEqual(KILLS);
      expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
      expect(b.md5).toBe(a.md5);
    }, 300_000);

  it('mariadb → NDJSON file, tail with cursor_id: every row one line, none torn', async () => {
    const src = dbs.mariadb;
    const t = 'eo_ma_nd_tail';
    for (const sql of [`DROP TABLE IF EXISTS ${t}_src`, `DROP TABLE IF EXISTS bridge_cursors_${t}_src`, SOURCE_DDL.mariadb(`${t}_src`)]) await src.exec(sql);
    const file = path.join(dir, `${t}.ndjson`);
    rmSync(file, { force: true });
    rmSync(`${file}.bridge-position`, { force: true });
    await src.exec(`INSERT INTO ${t}_src (w) VALUES (0)`);
    const args = ['tail', src.url(`${t}_src`, 'cursor_id=eo&polling_interval_ms=20'), `file://${file}`, '--cursor-column', 'id', '--batch-size', '100', '-q'];
    const { kills, runs } = await killLoop(args, writers('mariadb', `${t}_src`));
    const drain = await bridge(['copy', ...args.slice(1)]);
    expect(drain.exitCode, drain.stderr).toBe(0);
    const a = await content(src, `${t}_src`);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const rows = lines.map((l) => JSON.parse(l) as { id: number; w: number; v: number; note: string }).sort((x, y) => x.id - y.id);
    const md5 = createHash('md5').update(rows.map((r) => [r.id, r.w, r.v, r.note].map(String).join('|')).join('\n')).digest('hex');
    const ids = rows.map((r) => r.id);
    const distinct = new Set(ids);
    const lost = a.ids.filter((id) => !distinct.has(id)).length;
    const duplicates = ids.length - distinct.size;
    record({ scenario: 'exactly once mariadb → ndjson tail', runs: kills, lost, duplicates, outcome: lost === 0 && duplicates === 0 && md5 === a.md5 ? 'exactly once' : 'NOT EXACTLY ONCE' });
    console.log(`exactly once mariadb → ndjson tail: ${a.ids.length} rows, ${kills} kills in ${runs} runs, lost ${lost}, duplicates ${duplicates}`);
    expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
    expect(md5).toBe(a.md5);
  }, 300_000);

  it('postgres change capture → postgres table without a key (a change log): every insert and update once', async () => {
    const pg = dbs.postgres;
    const t = 'eo_cdc_src';
    const slot = 'eo_cdc_slot';
    await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
    for (const sql of [`DROP TABLE IF EXISTS ${t}`, 'DROP TABLE IF EXISTS eo_cdc_log', 'DROP PUBLICATION IF EXISTS eo_cdc_pub', SOURCE_DDL.postgres(t)]) await pg.exec(sql);
    const args = ['tail', pg.url(t, `publication=eo_cdc_pub&create_publication=true&slot_name=${slot}&snapshot=never`), pg.url('eo_cdc_log', `auto_create_table=true${process.env.EO_SINK_EXTRA ?? ''}`), '--batch-size', '70', '-q'];
    // The slot exists before the writers start: every change they make is in it.
    const first = spawnBridge(args);
    await waitFor(async () => (await pg.rows(`SELECT 1 FROM pg_replication_slots WHERE slot_name = '${slot}'`)).length > 0, 30_000, 50);
    first.kill('SIGKILL');
    await first;
    const script = path.join(dir, 'cdc.pgbench');
    // Inserts, and updates that raise v by one: each row's versions are 0..v, each must arrive once. Some transactions hold several.
    writeFileSync(
      script,
      `\\set r random(1, 10)\nBEGIN;\nINSERT INTO ${t} (w) VALUES (:client_id);\nUPDATE ${t} SET v = v + 1 WHERE id = (SELECT max(id) - :r FROM ${t});\nSELECT pg_sleep(random() * 0.01);\nUPDATE ${t} SET v = v + 1 WHERE id = (SELECT max(id) - 2 * :r FROM ${t});\nCOMMIT;\n`,
    );
    const writing = execa('pgbench', ['-n', '-c', '4', '-j', '2', '--max-tries', '50', '-T', String(SECONDS), '-f', script, PG_URL]);
    const { kills, runs } = await killLoop(args, writing);
    const drain = await bridge(['copy', ...args.slice(1)]);
    expect(drain.exitCode, drain.stderr).toBe(0);
    const want = await pg.rows(`SELECT id, v FROM ${t}`);
    const got = new Map<string, number>();
    for (const r of await pg.rows('SELECT payload FROM eo_cdc_log')) {
      const p = JSON.parse(Buffer.isBuffer(r.payload) ? r.payload.toString('utf8') : String(r.payload)) as { id: number; v: number };
      const k = `${p.id}@${p.v}`;
      got.set(k, (got.get(k) ?? 0) + 1);
    }
    let lost = 0;
    let changes = 0;
    for (const r of want) for (let v = 0; v <= Number(r.v); v++, changes++) if (!got.has(`${String(r.id)}@${v}`)) lost++;
    const duplicates = [...got.values()].reduce((n, c) => n + c - 1, 0);
    await pg.exec(`SELECT pg_drop_replication_slot('${slot}')`);
    record({ scenario: 'exactly once postgres change capture → postgres change log', runs: kills, lost, duplicates, outcome: lost === 0 && duplicates === 0 ? 'exactly once' : 'NOT EXACTLY ONCE' });
    console.log(`exactly once postgres change capture → change log: ${changes} changes, ${kills} kills in ${runs} runs, lost ${lost}, duplicates ${duplicates}`);
    expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
    expect(got.size).toBe(changes);
  }, 300_000);
});
