import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { mariadbCases } from './catalog-mariadb.js';
import { PG_SETUP, pgCases } from './catalog-pg.js';
import { sqliteCases } from './catalog-sqlite.js';
import type { Case } from './gen.js';
import { copy, createLike, createSource, deadIds, flagsOf, outcomes, readCells, urlOf, type Outcome, type SourceKind, type TargetKind } from './harness.js';

/**
 * Issue 11's differential round trip: generated values of every type each kind has (edges
 * included) copied with columns=auto to every kind, created by bridge from the source's columns,
 * and back into a table of the source's own shape. Per value: exact, or rejected with a reason
 * (dead-lettered), or changed where the dry run said LOSSY — and the dry run flags a column only if
 * some value of it was not exact. Nothing is lost, the summary counts what landed.
 */
const ALL_SOURCES: SourceKind[] = ['postgres', 'mariadb', 'sqlite'];
const ALL_TARGETS: TargetKind[] = ['postgres', 'mysql', 'mariadb', 'sqlite', 'ndjson'];
const only = process.env.BRIDGE_TEST_KINDS?.split(',');
const SOURCES = ALL_SOURCES.filter((k) => !only || only.includes(k));
const TARGETS = ALL_TARGETS.filter((k) => !only || only.includes(k) || (k === 'ndjson' && only.includes('ndjson')));

/**
 * What an NDJSON file cannot carry, so its round trip may change or reject (documented in the
 * README): SQLite storage classes other than the declared type's (a blob in an untyped column comes
 * back as its base64 text, a whole REAL as an INTEGER, text in an INTEGER column is refused).
 */
const NDJSON_LOSSES: Record<string, string[]> = { sqlite: ['c_any', 'c_int', 'c_bool', 'c_json'], mariadb: ['c_enum'] };
/** In a JSON line, a json column holding the document `null` and SQL NULL are both `null`: bridge writes SQL NULL. */
const ndjsonNull = (o: Outcome): boolean => /^\{"text":"null"\} → null$/.test(o.detail);

const CASES: Record<SourceKind, () => Case[]> = { postgres: pgCases, mariadb: mariadbCases, sqlite: sqliteCases };
const dbKind = (t: TargetKind): SourceKind | undefined => (t === 'mysql' || t === 'mariadb' ? 'mariadb' : t === 'ndjson' ? undefined : t);

describe('round trip: every type, every pair of kinds, exact or rejected or flagged', () => {
  const dir = tempDir('bridge-roundtrip-');
  const file = path.join(dir, 'rt.db');
  const dbs = {} as Record<SourceKind, TestDb>;
  const rows = {} as Record<SourceKind, Awaited<ReturnType<typeof createSource>>>;

  beforeAll(async () => {
    dbs.postgres = await postgres();
    dbs.mariadb = await mysqlLike('mariadb');
    dbs.sqlite = sqlite(file);
    await dbs.postgres.exec(PG_SETUP);
    for (const k of SOURCES) rows[k] = await createSource(dbs[k], k, `rt_src_${k}`, CASES[k]());
  }, 120_000);

  afterAll(async () => {
    for (const d of Object.values(dbs)) await d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const src of SOURCES)
    for (const tgt of TARGETS)
      it(`${src} → ${tgt} → ${src}`, async () => {
        const cases = CASES[src]();
        const colNames = cases.map((c) => c.col);
        const srcTable = `rt_src_${src}`;
        const fwd = `rt_${src}_to_${tgt}`;
        const back = `rt_${src}_back_from_${tgt}`;
        const tk = dbKind(tgt);
        if (tk) await dbs[tk].exec(`DROP TABLE IF EXISTS ${fwd}`);
        rmSync(path.join(dir, `${fwd}.ndjson`), { force: true });
        const srcUrl = urlOf(src, srcTable, file);
        const fwdUrl = urlOf(tgt, fwd, file, 'columns=auto&auto_create_table=true');

        // Forward: plan, then copy into a table bridge creates from the source's columns.
        const plan = tk ? await bridge(['copy', srcUrl, fwdUrl, '--dry-run']) : undefined;
        if (plan) expect(plan.exitCode, plan.stderr).toBe(0);
        const fwdFlags = plan ? flagsOf(plan.stdout) : new Map();
        const fwdDead = path.join(dir, `${fwd}.dead.ndjson`);
        rmSync(fwdDead, { force: true });
        const f = await copy(srcUrl, fwdUrl, fwdDead);
        expect(f.exitCode, f.stderr).toBe(0);
        const source = await readCells(src, file, srcTable, colNames);

        // Back: into a table of the source's shape, from the created table (or the NDJSON file).
        await createLike(dbs[src], src, back, cases);
        const backUrl = urlOf(src, back, file, 'columns=auto');
        const fromUrl = urlOf(tgt, fwd, file);
        const backPlan = tk ? await bridge(['copy', fromUrl, backUrl, '--dry-run']) : undefined;
        const backFlags = backPlan ? flagsOf(backPlan.stdout) : new Map();
        const backDead = path.join(dir, `${back}.dead.ndjson`);
        rmSync(backDead, { force: true });
        const b = await copy(fromUrl, backUrl, backDead);
        expect(b.exitCode, b.stderr).toBe(0);

        const landed = tk ? await readCells(tk, file, fwd, colNames) : undefined;
        const fwdOut = landed ? outcomes(rows[src], source, landed, deadIds(fwdDead)) : [];
        // Back, only what landed exactly: a value already changed (and flagged) going forward cannot come back unchanged.
        const landedIds = new Set(landed ? fwdOut.filter((o) => o.what === 'exact').map((o) => o.id) : rows[src].keys());
        const backOut = outcomes(rows[src], source, await readCells(src, file, back, colNames), deadIds(backDead), landedIds);
        if (landed) expect(f.rows, 'the summary counts the rows that landed').toBe(landed.size);

        const problems: string[] = [];
        if (process.env.BRIDGE_ROUNDTRIP_REPORT) console.log(JSON.stringify({ src, tgt, fwd: fwdOut.filter((o) => o.what !== 'exact'), back: backOut.filter((o) => o.what !== 'exact') }, null, 1));
        // The back copy reads the created (wider) table, whose values all come from the narrower source
        // type: its flags may be conservative, so only missing flags count there.
        const check = (dir: string, out: Outcome[], flags: Map<string, { lossy: string; rejects: string }>, allowed: string[]): void => {
          for (const col of colNames) {
            const mine = out.filter((o) => o.col === col);
            const fl = flags.get(col) ?? { lossy: '', rejects: '' };
            const bad = (what: Outcome['what']) => mine.filter((o) => o.what === what);
            for (const o of bad('lost')) problems.push(`${dir} ${col} ${o.literal}: LOST (not landed, not dead-lettered) ${o.detail}`);
            if (allowed.includes(col)) continue;
            for (const o of bad('changed')) if (!fl.lossy && !(tgt === 'ndjson' && ndjsonNull(o))) problems.push(`${dir} ${col} ${o.literal}: changed without a LOSSY flag: ${o.detail}`);
            for (const o of bad('rejected')) if (!fl.rejects && !fl.lossy) problems.push(`${dir} ${col} ${o.literal}: rejected without a REJECTS flag`);
            if (dir === 'back') continue;
            if (flags.size && fl.lossy && bad('changed').length === 0) problems.push(`${dir} ${col}: flagged LOSSY (${fl.lossy}) but every value was exact`);
            if (flags.size && fl.rejects && bad('rejected').length === 0) problems.push(`${dir} ${col}: flagged REJECTS (${fl.rejects}) but nothing was rejected`);
          }
        };
        check('forward', fwdOut, fwdFlags, []);
        check('back', backOut, backFlags, tgt === 'ndjson' ? (NDJSON_LOSSES[src] ?? []) : []);
        expect(problems).toEqual([]);
      });
});
