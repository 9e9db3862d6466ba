import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 27, 3: a column added (or renamed) on a captured table while a mirror streams. The new
 * column's values had no place in the mirror and were dropped with a warning, the run going on —
 * its data lost for good once the slot moved past. Into a mirror bridge does not keep in step
 * (auto_create_table off), the run now stops before writing that change, naming the column and
 * the statement to run; the slot keeps it, so the next run (after the fix) applies it. (A mirror
 * bridge keeps follows by itself: cdc-schema-follow.test.ts.)
 */
const dir = tempDir();
let pg: TestDb;
let lite: TestDb;
const slot = 'schema_slot';
beforeAll(async () => {
  pg = await postgres();
  lite = sqlite(path.join(dir, 'mirror.db'));
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
  await pg.exec("DROP PUBLICATION IF EXISTS schema_pub; DROP TABLE IF EXISTS schema_src, bridge_cursors_schema_src; CREATE TABLE schema_src (id int PRIMARY KEY, v text); INSERT INTO schema_src VALUES (1, 'a')");
});
afterAll(async () => {
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}' AND NOT active`);
  await pg.close();
  await lite.close();
});

it('ADD COLUMN on the source while a mirror streams: exit 2 naming the column and the fix, nothing of it dropped; after ALTER TABLE on the mirror the next run applies it', async () => {
  const src = `${PG_URL}?table=schema_src&publication=schema_pub&create_publication=true&slot_name=${slot}`;
  const dst = `sqlite://${path.join(dir, 'mirror.db')}?table=schema_m&columns=auto&key=id&auto_create_table=true`;
  expect((await bridge(['copy', src, dst, '-q'])).exitCode).toBe(0);
  await pg.exec("ALTER TABLE schema_src ADD COLUMN w int; INSERT INTO schema_src VALUES (2, 'b', 42)");
  const userMade = dst.replace('&auto_create_table=true', '');
  const r = await bridge(['copy', src, userMade, '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/the captured table's columns changed \(w added\); schema_m is not kept in step by bridge \(auto_create_table is off\), so nothing was written past the change\. Run on the sink: ALTER TABLE "schema_m" ADD COLUMN "w" INTEGER; then run again/);
  expect(r.stderr).not.toMatch(/dropped/);
  expect((await lite.rows('SELECT id FROM schema_m ORDER BY id')).map((x) => Number(x.id))).toEqual([1]);
  await lite.exec('ALTER TABLE schema_m ADD COLUMN w INTEGER');
  const again = await bridge(['copy', src, userMade, '--progress', 'none']);
  expect(again.exitCode, again.stderr).toBe(0);
  expect((await lite.rows('SELECT id, v, w FROM schema_m ORDER BY id')).map((x) => `${String(x.id)} ${String(x.v)} ${String(x.w)}`)).toEqual(['1 a null', '2 b 42']);
});
