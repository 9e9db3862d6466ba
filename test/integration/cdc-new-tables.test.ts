import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBridge, started, tempDir, waitFor } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 27, 3: CREATE TABLE while a capture of a pattern (`tables=schema.*`) streams. With a
 * publication that publishes the schema (FOR TABLES IN SCHEMA, made by the user), the new table's
 * changes come from its creation on: bridge captures it, and a mirror bridge keeps gets the table
 * (created from the source's columns) and every row. A new table without a key is named, not captured.
 * (MariaDB's binlog: binlog-capture.test.ts.)
 */
const dir = tempDir();
const CDC_URL = PG_URL.replace(/^postgres(ql)?:/, 'postgres+cdc:');
let pg: TestDb;

beforeAll(async () => {
  pg = await postgres();
});
afterAll(async () => {
  await pg.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'cn_slot' AND NOT active");
  await pg.close();
});

async function mirrorRows(file: string, t: string): Promise<Record<string, unknown>[]> {
  const db = sqlite(file);
  try {
    return (await db.rows(`SELECT * FROM ${t} ORDER BY 1`).catch(() => [])) as Record<string, unknown>[];
  } finally {
    await db.close();
  }
}

describe('postgres change capture of schema.*', () => {
  it('a table created while streaming is captured from its creation into a mirror bridge creates; one without a key is named', async () => {
    await pg.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'cn_slot'");
    await pg.exec('DROP PUBLICATION IF EXISTS cn_pub; DROP SCHEMA IF EXISTS cdcnew CASCADE; CREATE SCHEMA cdcnew');
    await pg.exec("CREATE TABLE cdcnew.a (id int PRIMARY KEY, v text); INSERT INTO cdcnew.a VALUES (1, 'x'); CREATE PUBLICATION cn_pub FOR TABLES IN SCHEMA cdcnew");
    const mirror = path.join(dir, 'new-tables.db');
    const p = spawnBridge(['tail', `${CDC_URL}?tables=cdcnew.*&publication=cn_pub&slot_name=cn_slot`, `sqlite://${mirror}?columns=auto&auto_create_table=true`, '--progress', 'plain', '--progress-interval', '200']);
    await started(p);
    await waitFor(async () => (await mirrorRows(mirror, 'a')).length === 1 || p.exitCode !== null, 30_000);
    await pg.exec(
      "CREATE TABLE cdcnew.c (id bigint PRIMARY KEY, v varchar(20), at timestamptz); INSERT INTO cdcnew.c VALUES (1, 'one', '2024-02-29 12:00:00.000001+00'), (2, 'two', NULL); UPDATE cdcnew.c SET v = 'uno' WHERE id = 1; DELETE FROM cdcnew.c WHERE id = 2; INSERT INTO cdcnew.a VALUES (2, 'y'); CREATE TABLE cdcnew.loose (v int); INSERT INTO cdcnew.loose VALUES (7)",
    );
    await waitFor(async () => ((await mirrorRows(mirror, 'c')).length === 1 && (await mirrorRows(mirror, 'a')).length === 2) || p.exitCode !== null, 30_000);
    p.kill('SIGTERM');
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await mirrorRows(mirror, 'c')).toEqual([{ id: 1n, v: 'uno', at: '2024-02-29 12:00:00.000001+00' }]);
    expect(await mirrorRows(mirror, 'a')).toEqual([{ id: 1n, v: 'x' }, { id: 2n, v: 'y' }]);
    expect(String(r.stderr)).toMatch(/capturing cdcnew\.c, created while the capture ran/);
    expect(String(r.stderr)).toMatch(/cdcnew\.loose was created while the capture ran, without a primary key or replica identity: not captured/);
  }, 60_000);
});
