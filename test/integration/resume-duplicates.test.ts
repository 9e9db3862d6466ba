import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Rows in the target past a route's saved position, under a primary key. Where the sink keeps no
 * position (position_table=none: at least once), that is what a copy killed between a commit of the
 * sink and the save of its position leaves: run again, it delivers those rows again and the key
 * refuses them. Where it does (the default: exactly once), bridge never leaves such rows, so someone
 * else put them there. Either way the run stops with exit 4, and the error must say why and what to
 * give (key=), not only "duplicate key".
 */
const dir = tempDir();
const N = 2000;
// Rows 1001..1500 committed past the saved position (1000): more than the COPY and LOAD DATA thresholds.
const PAST = Array.from({ length: 500 }, (_, i) => 1001 + i);
let src: TestDb;
let sinks: TestDb[];

beforeAll(async () => {
  src = sqlite(path.join(dir, 'src.db'));
  await src.exec('CREATE TABLE rd (id INTEGER PRIMARY KEY, v TEXT)');
  await src.exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${N}) INSERT INTO rd SELECT i, 'row ' || i FROM g`);
  sinks = [await postgres(), await mysqlLike('mariadb'), sqlite(path.join(dir, 'dst.db'))];
});
afterAll(async () => {
  for (const db of [src, ...sinks]) await db.close();
});

describe('a copy resumed with rows past its position in the target', () => {
  for (const kind of ['postgres', 'mariadb', 'sqlite'])
    for (const kept of [false, true])
      it(`into ${kind} with a primary key${kept ? ' (exactly once)' : ', at least once'}: exit 4 names the position it resumed from and key=; with key= it completes exactly`, async () => {
        const db = sinks.find((s) => s.kind === kind)!;
        const table = `rd_dst_${kind}${kept ? '_eo' : ''}`;
        const cursor = `rd_${kind}${kept ? '_eo' : ''}`;
        const fields = kept ? 'columns=auto' : 'columns=auto&position_table=none';
        await db.exec(`DROP TABLE IF EXISTS ${table}`);
        await db.exec(`CREATE TABLE ${table} (id ${kind === 'sqlite' ? 'INTEGER' : 'bigint'} PRIMARY KEY, v varchar(20))`);
        // What the killed run had committed past its saved position.
        await db.exec(`INSERT INTO ${table} VALUES ${PAST.map((i) => `(${i}, 'row ${i}')`).join(', ')}`);
        const from = src.url('rd', `cursor_column=id&cursor_id=${cursor}`);
        const first = await bridge(['copy', from, db.url(table, fields), '--limit', '1000', '--progress', 'none']);
        expect(first.exitCode).toBe(0);

        const again = await bridge(['copy', from, db.url(table, fields), '--progress', 'none']);
        expect(again.exitCode).toBe(4);
        expect(again.stderr).toMatch(/was rejected: .*(duplicate|Duplicate|UNIQUE)/);
        expect(again.stderr).toContain(`this run continued from cursor_id ${cursor} at id=1000`);
        expect(again.stderr).toContain(kept ? 'the target already holds rows with these keys that this route did not deliver' : 'delivered again (at least once)');
        expect(again.stderr).toContain('give the sink key=id');

        const keyed = await bridge(['copy', from, db.url(table, `${fields}&key=id`), '--progress', 'none']);
        expect(keyed.exitCode).toBe(0);
        const rows = await db.rows(`SELECT id, v FROM ${table} ORDER BY id`);
        expect(rows.map((r) => `${String(r.id)}:${String(r.v)}`)).toEqual(Array.from({ length: N }, (_, i) => `${i + 1}:row ${i + 1}`));
      });

  it('a duplicate key on a fresh run (no stored position) gets no resume hint', async () => {
    const db = sinks.find((s) => s.kind === 'sqlite')!;
    await db.exec('DROP TABLE IF EXISTS rd_fresh');
    await db.exec("CREATE TABLE rd_fresh (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO rd_fresh VALUES (7, 'row 7')");
    const r = await bridge(['copy', src.url('rd'), db.url('rd_fresh', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/UNIQUE constraint failed/);
    expect(r.stderr).not.toContain('continued from');
  });

  it('into an insert_query sink the hint says to make the insert skip or update, since key= is for columns=auto', async () => {
    const db = sinks.find((s) => s.kind === 'postgres')!;
    await db.exec('DROP TABLE IF EXISTS rd_q; CREATE TABLE rd_q (id bigint PRIMARY KEY, v text); INSERT INTO rd_q VALUES (1001, \'row 1001\')');
    const from = src.url('rd', 'cursor_column=id&cursor_id=rd_q');
    const to = db.url('rd_q', `position_table=none&insert_query=${encodeURIComponent('INSERT INTO rd_q (id, v) VALUES (${payload:id}, ${payload:v})')}`);
    expect((await bridge(['copy', from, to, '--limit', '1000', '--progress', 'none'])).exitCode).toBe(0);
    const again = await bridge(['copy', from, to, '--progress', 'none']);
    expect(again.exitCode).toBe(4);
    expect(again.stderr).toContain('this run continued from cursor_id rd_q at id=1000');
    expect(again.stderr).toContain('make the sink skip or update rows already there');
    expect(again.stderr).not.toContain('key=');
  });
});
