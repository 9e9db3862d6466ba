import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { binlogSuite, type BinlogDb } from '../helpers/binlog.js';
import { bridge, tempDir } from '../helpers/bridge.js';
import { PG_URL, type TestDb } from '../helpers/databases.js';

/**
 * Issue 27, 3 on MariaDB (binlog): a mirror bridge keeps (auto_create_table=true) follows ADD,
 * RENAME, widening MODIFY and DROP COLUMN made on the source with rows between each, all read in
 * one run after they happened (each change decoded with the columns it was written with, then
 * ALTER TABLE on the sink in the stream's order). Compared by column names and content.
 */
const dir = tempDir();
const { skip, s } = await binlogSuite('binlog-schema-follow', dir);

async function columns(d: TestDb | BinlogDb, table: string, kind: string): Promise<string[]> {
  if (kind === 'sqlite') return (await d.rows(`SELECT name FROM pragma_table_info('${table}') ORDER BY cid`)).map((r) => String(r.name));
  const schema = kind === 'postgres' ? 'current_schema()' : 'database()';
  return (await d.rows(`SELECT column_name AS c FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = '${table}' ORDER BY ordinal_position`)).map((r) => String(r.c));
}
async function content(d: TestDb | BinlogDb, table: string, kind: string): Promise<string[]> {
  const cols = await columns(d, table, kind);
  const rows = await d.rows(`SELECT ${cols.join(', ')} FROM ${table} ORDER BY id`);
  return rows.map((r) => cols.map((c) => (r[c] === null ? 'null' : String(r[c]))).join('|'));
}

describe.skipIf(skip !== undefined)('a mirror follows its MariaDB source through schema changes (mariadb+cdc://)', () => {
  for (const kind of ['sqlite', 'postgres'] as const)
    it(`into ${kind}: ADD, RENAME, MODIFY to wider types and DROP, with rows between each: same columns, same rows`, async () => {
      const t = `bl_sf_${kind}`;
      const mirror = kind === 'sqlite' ? s.lite : s.pg;
      await s.my.exec(`DROP TABLE IF EXISTS ${t}, bridge_cursors_${t}; CREATE TABLE ${t} (id int PRIMARY KEY, a int, s varchar(10))`);
      await s.my.exec(`INSERT INTO ${t} SELECT seq, seq * 10, CONCAT('s', seq) FROM seq_1_to_50`);
      await mirror.exec(`DROP TABLE IF EXISTS ${t}`);
      const dst = kind === 'sqlite' ? `sqlite://${path.join(dir, 'mirror.db')}?columns=auto&auto_create_table=true` : `${PG_URL}?columns=auto&auto_create_table=true`;
      const run = async () => {
        const r = await bridge(['copy', s.my.cdc(`tables=${t}&slot_name=${t}`), dst, '--progress', 'none']);
        expect(r.exitCode, r.stderr).toBe(0);
        return r.stderr;
      };
      await run();
      expect(await content(mirror, t, kind)).toEqual(await content(s.my, t, 'mariadb'));
      await s.my.exec(`ALTER TABLE ${t} ADD COLUMN w int; INSERT INTO ${t} VALUES (1001, 1, 'x', 7); UPDATE ${t} SET w = id WHERE id <= 5`);
      await s.my.exec(`ALTER TABLE ${t} RENAME COLUMN a TO b; UPDATE ${t} SET b = b + 1 WHERE id <= 10; INSERT INTO ${t} VALUES (1002, 2, 'y', 8)`);
      await s.my.exec(`ALTER TABLE ${t} MODIFY b bigint, MODIFY s varchar(50); INSERT INTO ${t} VALUES (1003, 1099511627776, 'a string longer than ten', 9)`);
      await s.my.exec(`ALTER TABLE ${t} DROP COLUMN w; UPDATE ${t} SET s = 'after drop' WHERE id = 3; INSERT INTO ${t} VALUES (1004, 4, 'z')`);
      const said = await run();
      expect(said).toMatch(/\(w added\)/);
      expect(said).toMatch(/\(a renamed to b\)/);
      expect(await columns(mirror, t, kind)).toEqual(['id', 'b', 's']);
      expect(await content(mirror, t, kind)).toEqual(await content(s.my, t, 'mariadb'));
    }, 120_000);
});
