import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * A PostgreSQL mirror encodes a batch of changes read ahead while the server merges the one before
 * (postgres/encoded-ahead.ts). Batches encoded ahead must land as if encoded when written: here
 * transactions of hundreds of changes (past COPY's threshold, so the COPY path and the encoding
 * ahead are taken) with column changes between them, where a batch read ahead of an ALTER was
 * shaped for the columns before it. The mirror must end equal to the source, column by column.
 */
let pg: TestDb;
const CDC = PG_URL.replace(/^postgres(ql)?:/, 'postgres+cdc:');
const SLOT = 'ea_slot';

beforeAll(async () => {
  pg = await postgres();
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${SLOT}'`);
  await pg.exec(`DROP PUBLICATION IF EXISTS ${SLOT}; DROP TABLE IF EXISTS ea_src, ea_mirror, bridge_cursors_ea_src`);
  await pg.exec(`CREATE TABLE ea_src (id int PRIMARY KEY, a int, s text); INSERT INTO ea_src SELECT g, g, 's' || g FROM generate_series(1, 1000) g`);
});
afterAll(async () => {
  // Both slots this file makes: one left behind holds WAL until someone drops it (13 GB found after a day of runs).
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name IN ('${SLOT}', 'ea_toast') AND NOT active`);
  await pg.exec(`DROP PUBLICATION IF EXISTS ${SLOT}, ea_toast`);
  await pg.close();
});

const content = async (table: string, cols: string) => (await pg.rows(`SELECT ${cols} FROM ${table} ORDER BY id`)).map((r) => JSON.stringify(r));

describe('a PostgreSQL mirror with batches encoded ahead', () => {
  it('transactions of 600–1,000 changes around ADD COLUMN and DROP COLUMN, read ahead in batches of 300: the mirror equals the source', async () => {
    const run = async () => {
      const r = await bridge(['copy', `${CDC}?tables=ea_src&slot_name=${SLOT}`, `${PG_URL}?table=ea_mirror&columns=auto&auto_create_table=true`, '--batch-size', '300', '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
    };
    await run();
    expect(await content('ea_mirror', 'id, a, s')).toEqual(await content('ea_src', 'id, a, s'));
    // One backlog: updates, a column added, updates filling it, new rows, a column dropped, more updates.
    await pg.exec('UPDATE ea_src SET a = a + 1');
    await pg.exec('ALTER TABLE ea_src ADD COLUMN c int');
    await pg.exec('UPDATE ea_src SET c = id * 2, a = a + 1');
    await pg.exec(`INSERT INTO ea_src SELECT g, g, 'n' || g, g * 3 FROM generate_series(1001, 1600) g`);
    await pg.exec('ALTER TABLE ea_src DROP COLUMN s');
    await pg.exec('UPDATE ea_src SET a = a * 10 WHERE id % 2 = 0');
    await run();
    expect(await content('ea_mirror', 'id, a, c')).toEqual(await content('ea_src', 'id, a, c'));
    const cols = (await pg.rows("SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'ea_mirror' ORDER BY ordinal_position")).map((r) => String(r.c));
    expect(cols).toEqual(['id', 'a', 'c']);
  }, 60_000);

  it('a transaction of rows in two shapes (unchanged TOAST values left out) read ahead of another: each shape lands in its own columns', async () => {
    await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'ea_toast'`);
    await pg.exec('DROP PUBLICATION IF EXISTS ea_toast; DROP TABLE IF EXISTS ea_t, ea_t_mirror');
    // big: 4 KB of hex, stored out of line (TOAST) and left out of an UPDATE that does not change it.
    await pg.exec(`CREATE TABLE ea_t (id int PRIMARY KEY, a int, big text); ALTER TABLE ea_t ALTER COLUMN big SET STORAGE EXTERNAL;
      INSERT INTO ea_t SELECT g, g, repeat(md5(g::text), 128) FROM generate_series(1, 600) g`);
    const run = async () => {
      const r = await bridge(['copy', `${CDC}?tables=ea_t&slot_name=ea_toast`, `${PG_URL}?table=ea_t_mirror&columns=auto&auto_create_table=true`, '--batch-size', '300', '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
    };
    await run();
    await pg.exec('UPDATE ea_t SET a = a + 1');
    // One transaction, two shapes: even rows change big (all columns sent), odd rows only a (big left out).
    await pg.exec(`UPDATE ea_t SET a = a * 7, big = CASE WHEN id % 2 = 0 THEN repeat(md5((id * 31)::text), 128) ELSE big END`);
    await pg.exec('UPDATE ea_t SET a = a - 3 WHERE id > 100');
    await run();
    const sum = (t: string) => pg.rows(`SELECT id, a, md5(big) AS big FROM ${t} ORDER BY id`).then((r) => r.map((x) => JSON.stringify(x)));
    expect(await sum('ea_t_mirror')).toEqual(await sum('ea_t'));
  }, 60_000);
});
