import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { MARIADB_URL, mysqlLike, PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Strangers' table names. Northwind's SQLite database has a table "Order Details"; MySQL schemas
 * have `order-items`; PostgreSQL users quote "Orders". A `table=*` migration of such a database
 * stopped at start (exit 2, "not a plain identifier"), and a change-capture mirror of "Orders"
 * looked for its copy's progress under the folded name: a restart streamed changes only and the
 * rows not yet copied never arrived. Every name is now quoted wherever it goes into SQL.
 */
const dir = tempDir();
const file = path.join(dir, 'northwind.db');
const NAMES = ['Order Details', 'order-items', "O'Brien's $$ list", 'Straße', 'Orders'];
let pg: TestDb;
let my: TestDb;
let lite: TestDb;
const pgq = (n: string) => `"${n.replace(/"/g, '""')}"`;
const myq = (n: string) => `\`${n.replace(/`/g, '``')}\``;

beforeAll(async () => {
  pg = await postgres();
  my = await mysqlLike('mariadb');
  lite = sqlite(file);
  for (const n of NAMES) {
    await lite.exec(`CREATE TABLE ${pgq(n)} (id INTEGER PRIMARY KEY, "unit price" NUMERIC, note TEXT NOT NULL)`);
    await lite.exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 500) INSERT INTO ${pgq(n)} SELECT i, i * 0.25, 'n' || i || ' of ${n.replace(/'/g, "''")}' FROM g`);
  }
  await lite.exec(`CREATE INDEX "order-items by note" ON "order-items" (note)`);
  for (const n of NAMES) {
    await pg.exec(`DROP TABLE IF EXISTS ${pgq(n)}`);
    await my.exec(`DROP TABLE IF EXISTS ${myq(n)}`);
  }
});
afterAll(async () => {
  for (const n of NAMES) {
    await pg.exec(`DROP TABLE IF EXISTS ${pgq(n)}, ${pgq(`bridge_cursors_${n}`)}`).catch(() => {});
    await my.exec(`DROP TABLE IF EXISTS ${myq(n)}`).catch(() => {});
  }
  await pg.exec('DROP PUBLICATION IF EXISTS names_pub').catch(() => {});
  await pg.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'names_slot' AND NOT active").catch(() => {});
  await pg.close();
  await my.close();
  await lite.close();
});

const rows = async (db: TestDb, sql: string) => (await db.rows(sql)).map((r) => `${String(r.id)}|${Number(r['unit price'])}|${String(r.note)}`);

describe('tables named with spaces, hyphens, quotes, $ and non-ASCII letters', () => {
  it('table=* copies every one of them into PostgreSQL and MariaDB, each equal to its source, with its index', async () => {
    for (const sink of [`${PG_URL}?columns=auto&auto_create_table=true`, `${MARIADB_URL}?columns=auto&auto_create_table=true`]) {
      const r = await bridge(['copy', `sqlite://${file}?table=*`, sink, '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
    }
    for (const n of NAMES) {
      const want = await rows(lite, `SELECT * FROM ${pgq(n)} ORDER BY id`);
      expect(want).toHaveLength(500);
      expect(await rows(pg, `SELECT * FROM ${pgq(n)} ORDER BY id`), n).toEqual(want);
      expect(await rows(my, `SELECT * FROM ${myq(n)} ORDER BY id`), n).toEqual(want);
    }
    expect(await pg.rows(`SELECT indexdef FROM pg_indexes WHERE tablename = 'order-items' AND indexdef LIKE '%(note)'`)).toHaveLength(1);
  }, 60_000);

  it('a name list with a glob and an --exclude finds them by their own names', async () => {
    const r = await bridge(['copy', `sqlite://${file}?table=Order*,Straße`, '-', '--exclude', 'Orders', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1000);
  });

  it('a cursor tail of "Order Details" keeps its position in its own checkpoint table and resumes from it', async () => {
    await pg.exec(`DROP TABLE IF EXISTS ${pgq('bridge_cursors_Order Details')}`);
    const src = `${PG_URL}?table=Order%20Details&cursor_column=id&cursor_id=names`;
    const first = await bridge(['tail', src, '-', '--exit-when-drained', '--progress', 'none']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(500);
    await pg.exec(`INSERT INTO ${pgq('Order Details')} VALUES (501, 1, 'late')`);
    const again = await bridge(['tail', src, '-', '--exit-when-drained', '--progress', 'none']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([501]);
  });

  it('a change-capture mirror of "Orders" stopped during its initial copy: the next run resumes the copy and the mirror equals the source', async () => {
    await pg.exec(`DROP TABLE IF EXISTS ${pgq('Orders')}, ${pgq('bridge_cursors_Orders')}; CREATE TABLE ${pgq('Orders')} (id int PRIMARY KEY, v text NOT NULL)`);
    await pg.exec(`INSERT INTO ${pgq('Orders')} SELECT g, 'v' || g FROM generate_series(1, 200000) g`);
    const mirror = path.join(dir, 'mirror.db');
    const args = ['tail', `${PG_URL}?table=Orders&publication=names_pub&create_publication=true&slot_name=names_slot`, `sqlite://${mirror}?table=Orders&columns=auto&key=id&auto_create_table=true`, '--progress', 'none', '--batch-size', '100'];
    const p = spawnBridge(args);
    await waitFor(async () => (await pg.rows(`SELECT 1 FROM ${pgq('bridge_cursors_Orders')} WHERE last_value LIKE '%"after":["%'`).catch(() => [])).length > 0, 60_000, 10);
    p.kill('SIGTERM');
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toMatch(/the initial copy of Orders stopped after \d+ rows: the next run resumes it/);
    const again = await bridge([...args.slice(0, 3), '--exit-when-drained', '--progress', 'none']);
    expect(again.exitCode, again.stderr).toBe(0);
    const m = sqlite(mirror);
    try {
      const [c] = await m.rows(`SELECT count(*) AS n, sum(id) AS s FROM "Orders"`);
      expect({ n: Number(c!.n), s: Number(c!.s) }).toEqual({ n: 200000, s: 20000100000 });
    } finally {
      await m.close();
    }
  }, 120_000);
});
