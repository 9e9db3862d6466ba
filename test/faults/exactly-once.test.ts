import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { content, killLoop, KILLS, SINK_DDL, SOURCE_DDL, writers, type Kind } from '../helpers/exactly-once.js';
import { record } from './report.js';

/**
 * Issue 28, the proof: each route kind is SIGKILLed at random moments (start-up, reads, inside a
 * COPY, inside the commit) while writers insert into the source with transactions that commit out
 * of order (and some that roll back: gaps). Each run is restarted at once; once the writers stop,
 * one run drains the rest. The sink table has no key (duplicates would stay) and no key= is given:
 * every source row must be there exactly once, equal by md5 of the ordered rows.
 * EO_SINK_EXTRA='&position_table=none' shows the tests fail without the sink's position (duplicates).
 */
const dir = tempDir('exactly-once-');
let dbs: Record<Kind, TestDb>;
const sqliteFile = path.join(dir, 'eo.db');

beforeAll(async () => {
  dbs = { postgres: await postgres(), mariadb: await mysqlLike('mariadb'), sqlite: sqlite(sqliteFile) };
});
afterAll(async () => {
  for (const db of Object.values(dbs)) await db.close();
});

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
      const { kills, runs } = await killLoop(args, writers(r.from, `${t}_src`, dir, sqliteFile));
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
    const { kills, runs } = await killLoop(args, writers('mariadb', `${t}_src`, dir, sqliteFile));
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

});
