import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * A migration keeps a column's "the current time" default, and the rows an application inserts
 * after it must be in the same time as the rows copied. SQLite's CURRENT_TIMESTAMP is UTC, and a
 * PostgreSQL timestamptz lands in a MariaDB DATETIME as UTC; both became the target's local-time
 * default (PostgreSQL CURRENT_TIMESTAMP into `timestamp`, MariaDB current_timestamp()): on a server
 * whose sessions are not in UTC, every new row was hours off the copied ones. MariaDB's also lost
 * the microseconds PostgreSQL's now() gives. Servers here run in UTC, so each insert below is made
 * in a session at UTC+13 or +14, as an application far from Greenwich would.
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;
let lite: TestDb;

beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  lite = sqlite(path.join(dir, 'times.db'));
  await lite.exec('CREATE TABLE td_events (id INTEGER PRIMARY KEY, at DATETIME DEFAULT CURRENT_TIMESTAMP, on_day DATE DEFAULT CURRENT_DATE); INSERT INTO td_events (id) VALUES (1)');
  await pg.exec(`DROP SCHEMA IF EXISTS td CASCADE; CREATE SCHEMA td;
    CREATE TABLE td.td_made (id int PRIMARY KEY, made timestamptz DEFAULT now(), local_made timestamp DEFAULT now()); INSERT INTO td.td_made (id) VALUES (1)`);
  await maria.exec('DROP TABLE IF EXISTS td_events, td_made');
});
afterAll(async () => {
  await pg.exec('DROP SCHEMA IF EXISTS td_lite CASCADE; DROP SCHEMA IF EXISTS td CASCADE');
  await maria.exec('DROP TABLE IF EXISTS td_events, td_made');
  for (const d of [pg, maria, lite]) await d.close();
});

const migrate = async (src: string, dst: string) => {
  const r = await bridge(['copy', src, dst, '--progress', 'none']);
  expect(r.exitCode, String(r.stderr)).toBe(0);
  expect(String(r.stderr)).not.toMatch(/not kept: default/);
};

describe('"the current time" defaults kept by a migration, for rows inserted after it', () => {
  it("SQLite CURRENT_TIMESTAMP and CURRENT_DATE (UTC) → PostgreSQL timestamp and date: a row inserted at UTC+14 gets UTC's time and day", async () => {
    await pg.exec('DROP SCHEMA IF EXISTS td_lite CASCADE; CREATE SCHEMA td_lite');
    await migrate(lite.url('*'), pg.url('td_lite.*', 'columns=auto&auto_create_table=true'));
    await pg.exec("SET TimeZone = 'Pacific/Kiritimati'; INSERT INTO td_lite.td_events (id) VALUES (2); RESET TimeZone");
    expect(
      await pg.rows(`SELECT abs(extract(epoch FROM at - (now() AT TIME ZONE 'UTC'))) < 120 AS in_utc, on_day = (now() AT TIME ZONE 'UTC')::date AS utc_day FROM td_lite.td_events WHERE id = 2`),
    ).toEqual([{ in_utc: true, utc_day: true }]);
  });

  it('SQLite CURRENT_TIMESTAMP and CURRENT_DATE (UTC) → MariaDB DATETIME and DATE: a row inserted at +13:00 gets UTC_TIMESTAMP and UTC_DATE', async () => {
    await migrate(lite.url('*'), maria.url('*', 'columns=auto&auto_create_table=true'));
    await maria.exec("SET time_zone = '+13:00'");
    await maria.exec('INSERT INTO td_events (id) VALUES (2)');
    const got = await maria.rows('SELECT ABS(TIMESTAMPDIFF(SECOND, at, UTC_TIMESTAMP())) < 120 AS in_utc, on_day = UTC_DATE() AS utc_day FROM td_events WHERE id = 2');
    await maria.exec("SET time_zone = '+00:00'");
    expect(got.map((r) => ({ in_utc: Number(r.in_utc), utc_day: Number(r.utc_day) }))).toEqual([{ in_utc: 1, utc_day: 1 }]);
  });

  it('PostgreSQL timestamptz DEFAULT now() → MariaDB DATETIME(6) (its values in UTC): a row inserted at +13:00 gets UTC, with microseconds; a zone-less timestamp keeps local time', async () => {
    await migrate(pg.url('td.*'), maria.url('*', 'columns=auto&auto_create_table=true'));
    await maria.exec("SET time_zone = '+13:00'");
    await maria.exec('INSERT INTO td_made (id) VALUES (2)');
    const got = await maria.rows(
      'SELECT ABS(TIMESTAMPDIFF(SECOND, made, UTC_TIMESTAMP())) < 120 AS in_utc, ABS(TIMESTAMPDIFF(SECOND, local_made, NOW())) < 120 AS local_time, MICROSECOND(made) > 0 AS micros FROM td_made WHERE id = 2',
    );
    await maria.exec("SET time_zone = '+00:00'");
    expect(got.map((r) => ({ in_utc: Number(r.in_utc), local_time: Number(r.local_time), micros: Number(r.micros) }))).toEqual([{ in_utc: 1, local_time: 1, micros: 1 }]);
  });
});
