import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: PostgreSQL arrays whose lower bound is not 1 (`'[0:2]={1,2,3}'`) lost the bound into
 * MariaDB, SQLite and NDJSON, and so on the way back. Rule (docs/types.md): such an array travels
 * as PostgreSQL's own array text, a JSON string that keeps the bounds, and a PostgreSQL array
 * column takes that text back; arrays starting at 1 stay JSON arrays.
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;
const WANT = [
  { id: 1, a: '[0:2]={1,2,3}', t: '[-1:0]={a,"b c"}' },
  { id: 2, a: '{4,5}', t: '{c}' },
  { id: 3, a: '[1:1][0:1]={{7,8}}', t: null },
];
beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS t_bounds, t_bounds_back');
  await pg.exec('CREATE TABLE t_bounds (id int PRIMARY KEY, a int[], t text[])');
  await pg.exec(`INSERT INTO t_bounds VALUES (1, '[0:2]={1,2,3}', '[-1:0]={a,"b c"}'), (2, '{4,5}', '{c}'), (3, '[1:1][0:1]={{7,8}}', NULL)`);
  await pg.exec('CREATE TABLE t_bounds_back (id int PRIMARY KEY, a int[], t text[])');
});
afterAll(async () => {
  await pg.close();
  await maria.close();
});

const back = async () => (await pg.rows('SELECT id, a::text AS a, t::text AS t FROM t_bounds_back ORDER BY id')).map((r) => ({ ...r, id: Number(r.id) }));

describe('PostgreSQL arrays with a lower bound other than 1', () => {
  it('PostgreSQL → PostgreSQL keeps the bounds', async () => {
    await pg.exec('TRUNCATE t_bounds_back');
    const r = await bridge(['copy', pg.url('t_bounds'), pg.url('t_bounds_back', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await back()).toEqual(WANT);
  });

  it('→ NDJSON as the array text, and back into PostgreSQL with the bounds', async () => {
    const out = path.join(dir, 'bounds.ndjson');
    const r = await bridge(['copy', pg.url('t_bounds'), `file://${out}`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(rows).toEqual([
      { id: 1, a: '[0:2]={1,2,3}', t: '[-1:0]={a,"b c"}' },
      { id: 2, a: [4, 5], t: ['c'] },
      { id: 3, a: '[1:1][0:1]={{7,8}}', t: null },
    ]);
    await pg.exec('TRUNCATE t_bounds_back');
    const b = await bridge(['copy', `file://${out}`, pg.url('t_bounds_back', 'columns=auto'), '--progress', 'none']);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(await back()).toEqual(WANT);
  });

  it('→ MariaDB and → SQLite (created tables) keep the bounds, and come back with them', async () => {
    await maria.exec('DROP TABLE IF EXISTS t_bounds');
    const m = await bridge(['copy', pg.url('t_bounds'), maria.url('t_bounds', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(m.exitCode, m.stderr).toBe(0);
    // The test's mysql2 may hand MariaDB's JSON columns over already parsed.
    const json = (v: unknown): unknown => (typeof v === 'string' && /^["[{]/.test(v) && !/^\[-?\d+:/.test(v) ? JSON.parse(v) : v);
    expect((await maria.rows('SELECT a FROM t_bounds ORDER BY id')).map((x) => json(x.a))).toEqual(['[0:2]={1,2,3}', [4, 5], '[1:1][0:1]={{7,8}}']);
    await pg.exec('TRUNCATE t_bounds_back');
    const mb = await bridge(['copy', maria.url('t_bounds'), pg.url('t_bounds_back', 'columns=auto'), '--progress', 'none']);
    expect(mb.exitCode, mb.stderr).toBe(0);
    expect(await back()).toEqual(WANT);

    const file = path.join(dir, 'bounds.db');
    const s = await bridge(['copy', pg.url('t_bounds'), `sqlite://${file}?table=t_bounds&columns=auto&auto_create_table=true`, '--progress', 'none']);
    expect(s.exitCode, s.stderr).toBe(0);
    const db = new Database(file);
    const got = db.prepare('SELECT a FROM t_bounds ORDER BY id').all() as { a: string }[];
    db.close();
    expect(got.map((x) => JSON.parse(x.a) as unknown)).toEqual(['[0:2]={1,2,3}', [4, 5], '[1:1][0:1]={{7,8}}']);
    await pg.exec('TRUNCATE t_bounds_back');
    const sb = await bridge(['copy', `sqlite://${file}?table=t_bounds`, pg.url('t_bounds_back', 'columns=auto'), '--progress', 'none']);
    expect(sb.exitCode, sb.stderr).toBe(0);
    expect(await back()).toEqual(WANT);
  });
});
