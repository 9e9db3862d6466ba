import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: a PostgreSQL sink whose session time zone is not UTC (`options=-c TimeZone=…` on the
 * URL). MariaDB TIMESTAMP values (instants) landed shifted by the zone's offset, and DATETIME values
 * in a DST gap moved: the text was sent without an offset, so the session's zone was applied.
 * Instants are sent with their offset, and a zone-less value bound to timestamptz means UTC, as it
 * does in a UTC session: whatever the session says, the same instants land.
 */
let maria: TestDb;
let pg: TestDb;
const BERLIN = 'options=-c%20TimeZone%3DEurope/Berlin';
const ROWS = [
  ['1', '2024-03-31 01:30:00.000000', '2024-03-31 02:30:00.000000'], // DATETIME in Berlin's spring-forward gap
  ['2', '2024-07-01 12:00:00.500000', '2024-10-27 02:30:00.000000'], // DATETIME in Berlin's repeated hour
  ['3', '1970-01-01 00:00:01.000000', '9999-12-31 23:59:59.999999'],
];
beforeAll(async () => {
  maria = await mysqlLike('mariadb');
  pg = await postgres();
  await maria.exec('DROP TABLE IF EXISTS t_session_tz');
  await maria.exec('CREATE TABLE t_session_tz (id int PRIMARY KEY, ts TIMESTAMP(6) NULL, dt DATETIME(6))');
  await maria.exec(`INSERT INTO t_session_tz VALUES ${ROWS.map(([id, ts, dt]) => `(${id}, '${ts}', '${dt}')`).join(', ')}`);
});
afterAll(async () => {
  await maria.close();
  await pg.close();
});

const utc = async (sql: string) => (await pg.rows(sql)).map((r) => Object.values(r).map(String));

describe('a PostgreSQL sink in Europe/Berlin', () => {
  it('MariaDB TIMESTAMP lands as the same instant and DATETIME as the same wall-clock value (created table)', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_session_tz');
    const r = await bridge(['copy', maria.url('t_session_tz'), pg.url('t_session_tz', `columns=auto&auto_create_table=true&${BERLIN}`), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await utc(`SELECT id, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS a, to_char(dt, 'YYYY-MM-DD HH24:MI:SS.US') AS b FROM t_session_tz ORDER BY id`)).toEqual(ROWS);
  });

  it('into timestamptz columns both land as UTC instants, none moved by the DST gap', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_session_tz');
    await pg.exec('CREATE TABLE t_session_tz (id int PRIMARY KEY, ts timestamptz(6), dt timestamptz(6))');
    for (const extra of ['', '&key=id']) {
      await pg.exec('TRUNCATE t_session_tz');
      const r = await bridge(['copy', maria.url('t_session_tz'), pg.url('t_session_tz', `columns=auto&${BERLIN}${extra}`), '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(await utc(`SELECT id, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS a, to_char(dt AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS b FROM t_session_tz ORDER BY id`)).toEqual(ROWS);
    }
  });
});
