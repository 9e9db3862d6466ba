import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, lines, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 27, 1: the change-capture endpoint (`postgres+cdc://…?tables=…`): several tables through
 * one slot and one publication, each into the sink table of its name (or one NDJSON stream with
 * bridge.table), the operations asked for, drop_slot on a clean stop, start_position checked.
 * Mirrors are compared by content with the source.
 */
const dir = tempDir();
const CDC_URL = PG_URL.replace(/^postgres(ql)?:/, 'postgres+cdc:');
const mirrorFile = path.join(dir, 'mirror.db');
let pg: TestDb;
let lite: TestDb;
const slots = ['ce_slot', 'ce_ops', 'ce_drop', 'ce_start'];
const dropSlots = () => pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name IN (${slots.map((s) => `'${s}'`).join(', ')}) AND NOT active`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  pg = await postgres();
  lite = sqlite(mirrorFile);
  await dropSlots();
  await pg.exec(`DROP PUBLICATION IF EXISTS ${slots.join(', ')}; DROP SCHEMA IF EXISTS cex CASCADE; CREATE SCHEMA cex`);
  await pg.exec(`CREATE TABLE cex.orders (id int PRIMARY KEY, customer text NOT NULL, total numeric(12,2)); CREATE TABLE cex.items (order_id int, line int, sku text, qty int, PRIMARY KEY (order_id, line)); CREATE TABLE cex.nokey (v text)`);
  await pg.exec(`INSERT INTO cex.orders SELECT g, 'c' || g, g * 1.25 FROM generate_series(1, 2000) g; INSERT INTO cex.items SELECT g, l, 'sku' || l, l FROM generate_series(1, 2000) g, generate_series(1, 3) l`);
});
afterAll(async () => {
  await dropSlots();
  await pg.exec(`DROP PUBLICATION IF EXISTS ${slots.join(', ')}`);
  await pg.close();
  await lite.close();
});

const orders = async (db: TestDb, t: string) => (await db.rows(`SELECT id, customer, total FROM ${t} ORDER BY id`)).map((r) => `${String(r.id)}|${String(r.customer)}|${Number(r.total).toFixed(2)}`);
const items = async (db: TestDb, t: string) => (await db.rows(`SELECT order_id, line, sku, qty FROM ${t} ORDER BY order_id, line`)).map((r) => `${String(r.order_id)}|${String(r.line)}|${String(r.sku)}|${String(r.qty)}`);

describe('postgres+cdc:// — one slot, several tables', () => {
  it('tables=cex.*: existing rows, then transactions spanning both tables, each into the mirror table of its name; a SIGKILL mid-stream loses nothing', async () => {
    const args = ['tail', `${CDC_URL}?tables=cex.*&slot_name=ce_slot`, `sqlite://${mirrorFile}?columns=auto&auto_create_table=true`, '--progress', 'none'];
    let p = spawnBridge(args);
    let i = 2000;
    const write = async (n: number) => {
      for (let k = 0; k < n; k++, i++) {
        await pg.exec(`BEGIN; INSERT INTO cex.orders VALUES (${i + 1}, 'new', 9.99); INSERT INTO cex.items VALUES (${i + 1}, 1, 'x', 1); UPDATE cex.orders SET total = total + 1 WHERE id = ${(i * 37) % 2000 + 1}; DELETE FROM cex.items WHERE order_id = ${(i * 53) % 2000 + 1}; COMMIT`);
        await sleep(3);
      }
    };
    await write(150);
    await waitFor(async () => (await orders(lite, 'orders').catch(() => [])).length > 2000, 30_000, 200);
    p.kill('SIGKILL');
    await p.catch(() => undefined);
    await write(150);
    p = spawnBridge(args);
    const want = [await orders(pg, 'cex.orders'), await items(pg, 'cex.items')];
    await waitFor(async () => JSON.stringify([await orders(lite, 'orders'), await items(lite, 'items')]) === JSON.stringify(want), 60_000, 300).catch(() => undefined);
    p.kill('SIGTERM');
    const r = await p.catch((e: unknown) => e as { exitCode: number; stderr: string });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).toMatch(/not captured \(no primary key.*\): cex\.nokey/);
    expect(await orders(lite, 'orders')).toEqual(want[0]);
    expect(await items(lite, 'items')).toEqual(want[1]);
    // One slot and one publication cover both tables.
    const pub = await pg.rows(`SELECT tablename FROM pg_publication_tables WHERE pubname = 'ce_slot' ORDER BY 1`);
    expect(pub.map((x) => x.tablename)).toEqual(['items', 'orders']);
  }, 150_000);

  it('operations=insert,delete into NDJSON: one stream with bridge.table, updates skipped', async () => {
    const out = path.join(dir, 'ops.ndjson');
    const p = spawnBridge(['tail', `${CDC_URL}?tables=cex.orders,cex.items&slot_name=ce_ops&snapshot=never&operations=insert,delete`, `file://${out}?format=envelope`, '--progress', 'none']);
    await waitFor(async () => (await pg.rows(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'ce_ops' AND active`)).length === 1, 20_000, 100);
    await pg.exec(`BEGIN; INSERT INTO cex.orders VALUES (90001, 'ops', 1); INSERT INTO cex.items VALUES (90001, 1, 'ops', 2); UPDATE cex.orders SET total = 2 WHERE id = 90001; DELETE FROM cex.items WHERE order_id = 90001; COMMIT`);
    // The file is made when the sink opens, which may be after the slot is active.
    await waitFor(async () => existsSync(out) && (readFileSync(out, 'utf8').match(/\n/g) ?? []).length >= 3, 20_000, 100);
    await sleep(500);
    p.kill('SIGTERM');
    await p;
    const got = lines(readFileSync(out, 'utf8')).map((l) => JSON.parse(l) as { metadata: Record<string, string> }).map((m) => `${m.metadata['bridge.op']} ${m.metadata['bridge.table']}`);
    expect(got).toEqual(['insert cex.orders', 'insert cex.items', 'delete cex.items']);
    // The publication bridge made publishes only what was asked for.
    const [pub] = await pg.rows(`SELECT pubinsert, pubupdate, pubdelete, pubtruncate FROM pg_publication WHERE pubname = 'ce_ops'`);
    expect(pub).toEqual({ pubinsert: true, pubupdate: false, pubdelete: true, pubtruncate: false });
  }, 60_000);

  it('drop_slot=true: a run stopped by SIGINT leaves no slot and no publication behind', async () => {
    const out = path.join(dir, 'drop.ndjson');
    const p = spawnBridge(['tail', `${CDC_URL}?tables=cex.orders&slot_name=ce_drop&drop_slot=true`, `file://${out}`, '--progress', 'none']);
    // Active while it is being made too (it waits for transactions that have written): made once it has a confirmed position.
    await waitFor(async () => (await pg.rows(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'ce_drop' AND active AND confirmed_flush_lsn IS NOT NULL`)).length === 1, 30_000, 100);
    p.kill('SIGINT');
    const r = await p.catch((e: unknown) => e as { exitCode: number; stderr: string });
    expect([0, 130], String(r.stderr)).toContain(r.exitCode);
    expect(r.stderr).toContain('replication slot ce_drop dropped (drop_slot=true)');
    expect(await pg.rows(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'ce_drop'`)).toEqual([]);
    expect(await pg.rows(`SELECT 1 FROM pg_publication WHERE pubname = 'ce_drop'`)).toEqual([]);
  }, 60_000);

  it('a start_position before what the slot confirmed is refused, naming the field', async () => {
    await pg.exec(`SELECT pg_create_logical_replication_slot('ce_start', 'pgoutput')`);
    const r = await bridge(['tail', `${CDC_URL}?tables=cex.orders&slot_name=ce_start&snapshot=never&start_position=0/1`, '-', '--progress', 'none']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/start_position 0\/1 is before what replication slot ce_start has confirmed/);
  }, 30_000);

  it.each([
    ['start_position without snapshot=never', '?tables=cex.orders&start_position=0/1', /start_position .* add snapshot=never/],
    ['an unknown operation', '?tables=cex.orders&operations=insert,upsert', /operations: "upsert" is not an operation/],
    ['no tables', '?slot_name=x', /needs tables: add \?tables=/],
    ['a database field', '?tables=cex.orders&cursor_column=id', /cursor_column is not a field of the postgres source/],
    ['snapshot=only with a slot option', '?tables=cex.orders&snapshot=only&drop_slot=true', /snapshot=only .* remove drop_slot/],
  ])('%s is a config error (exit 2) before anything connects', async (_name, query, message) => {
    const r = await bridge(['copy', `postgres+cdc://127.0.0.1:1/none${query}`, '-', '--progress', 'none']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('several captured tables into a sink that names one table is refused, naming the fix', async () => {
    const r = await bridge(['copy', `${CDC_URL}?tables=cex.orders,cex.items&snapshot=only`, `sqlite://${mirrorFile}?table=one&columns=auto&auto_create_table=true`, '--progress', 'none']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/the sink's table must be left out .* several tables are captured/);
  });

  it('a snapshot=only run that stops before its end says a new run copies again, and its summary names no slot', async () => {
    const r = await bridge(['copy', `${CDC_URL}?tables=cex.orders,cex.items&snapshot=only`, `sqlite://${mirrorFile}?table=one&columns=auto&auto_create_table=true`, '--progress', 'none']);
    expect(r.exitCode).toBe(2);
    // snapshot=only keeps no slot and no progress: nothing resumes it.
    expect(r.stderr).toMatch(/the initial copy of cex\.orders stopped after 0 rows: snapshot=only keeps no progress, a new run copies again/);
    expect(r.stderr).not.toMatch(/resumes it|slot bridge_slot|confirmed at/);
  });
});
