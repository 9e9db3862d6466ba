import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 27, 4: an UPDATE that does not touch a large (TOASTed) column sends it as "unchanged" in
 * pgoutput. The change then carries no value for it, and the mirror must keep the one it has — it
 * wrote NULL when the row's INSERT and that UPDATE came in one batch (the last change of a key won,
 * whole), and must also when the UPDATE comes alone.
 */
const dir = tempDir();
let pg: TestDb;
const slot = 'toast_slot_t';
const big = "(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 3200) g)"; // 100 KB, stored out of line
beforeAll(async () => {
  pg = await postgres();
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
  await pg.exec('DROP PUBLICATION IF EXISTS toast_pub_t; DROP TABLE IF EXISTS toast_t_src, toast_t_m; CREATE TABLE toast_t_src (id int PRIMARY KEY, big text, n int)');
});
afterAll(async () => {
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}' AND NOT active`);
  await pg.close();
});

it('a 100 KB text column the UPDATEs do not touch keeps its value in PostgreSQL and SQLite mirrors (same batch as the INSERT, and alone)', async () => {
  const src = `${PG_URL}?table=toast_t_src&publication=toast_pub_t&create_publication=true&slot_name=${slot}`;
  const file = path.join(dir, 'toast.db');
  const sinks = [pg.url('toast_t_m', 'columns=auto&key=id&auto_create_table=true'), `sqlite://${file}?table=toast_t_m&columns=auto&key=id&auto_create_table=true`];
  // The slot is created first; each sink then reads the same changes (the second from a re-created slot).
  expect((await bridge(['copy', src, sinks[0]!, '-q'])).exitCode).toBe(0);
  await pg.exec(`INSERT INTO toast_t_src VALUES (1, ${big}, 0), (2, ${big}, 0); UPDATE toast_t_src SET n = 1`);
  let r = await bridge(['copy', src, sinks[0]!, '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(0);
  await pg.exec('UPDATE toast_t_src SET n = 2 WHERE id = 2');
  r = await bridge(['copy', src, sinks[0]!, '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(await pg.rows('SELECT m.id, m.n, m.big = s.big AS same FROM toast_t_m m JOIN toast_t_src s USING (id) ORDER BY id')).toEqual([
    { id: 1, n: 1, same: true },
    { id: 2, n: 2, same: true },
  ]);

  await pg.exec(`SELECT pg_drop_replication_slot('${slot}'); DELETE FROM toast_t_src`);
  expect((await bridge(['copy', src, sinks[1]!, '-q'])).exitCode).toBe(0);
  await pg.exec(`INSERT INTO toast_t_src VALUES (1, ${big}, 0); UPDATE toast_t_src SET n = 1`);
  r = await bridge(['copy', src, sinks[1]!, '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(0);
  await pg.exec('UPDATE toast_t_src SET n = 3');
  r = await bridge(['copy', src, sinks[1]!, '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(0);
  const want = String((await pg.rows('SELECT big FROM toast_t_src'))[0]!.big);
  const db = new Database(file, { readonly: true });
  try {
    expect(db.prepare('SELECT id, n, big = ? AS same FROM toast_t_m').all(want)).toEqual([{ id: 1, n: 3, same: 1 }]);
  } finally {
    db.close();
  }
});
