import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Noticed in stop 45 and left then: tables bridge creates on MariaDB were utf8mb4_bin, a PAD SPACE
 * collation, which compares 'a ' equal to 'a'. A PostgreSQL table keyed by text holding both (two
 * rows there: PostgreSQL compares every character) lost one into the dead letters as a duplicate
 * key, exit 4 without them; a unique column likewise. MariaDB (10.2+) has utf8mb4_nopad_bin, which
 * compares as PostgreSQL and SQLite do: typed creation takes it there.
 */
let pg: TestDb;
let maria: TestDb;

beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS ts_codes');
  await pg.exec('CREATE TABLE ts_codes (code text PRIMARY KEY, label varchar(20) UNIQUE, n int)');
  await pg.exec("INSERT INTO ts_codes VALUES ('a', 'x', 1), ('a ', 'x ', 2), ('a  ', 'x  ', 3), ('b', 'y', 4)");
  await maria.exec('DROP TABLE IF EXISTS ts_codes');
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS ts_codes');
  await maria.exec('DROP TABLE IF EXISTS ts_codes');
  await pg.close();
  await maria.close();
});

describe('text keys that differ only by trailing spaces, PostgreSQL → MariaDB', () => {
  it('every row lands in a table bridge creates, keys with their spaces, and the key still finds each one alone', async () => {
    const r = await bridge(['copy', pg.url('ts_codes'), maria.url('ts_codes', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = await maria.rows("SELECT HEX(code) AS code, HEX(label) AS label, n FROM ts_codes ORDER BY n");
    expect(rows).toEqual([
      { code: '61', label: '78', n: 1 },
      { code: '6120', label: '7820', n: 2 },
      { code: '612020', label: '782020', n: 3 },
      { code: '62', label: '79', n: 4 },
    ]);
    expect(await maria.rows("SELECT n FROM ts_codes WHERE code = 'a'")).toEqual([{ n: 1 }]);
  });

  it('a second run with key=code writes over each row by its own key (no row merged into another)', async () => {
    await pg.exec("UPDATE ts_codes SET n = n + 10");
    const r = await bridge(['copy', pg.url('ts_codes'), maria.url('ts_codes', 'columns=auto&key=code'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await maria.rows('SELECT n FROM ts_codes ORDER BY n')).toEqual([{ n: 11 }, { n: 12 }, { n: 13 }, { n: 14 }]);
  });
});
