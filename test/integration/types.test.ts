import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, lines, tempDir } from '../helpers/bridge.js';
import { allKinds, type TestDb } from '../helpers/databases.js';

/** The same two rows in every kind, in the types all four share (decisions §4). */
const DDL: Record<TestDb['kind'], string> = {
  postgres: `CREATE TABLE t_common_pg (id bigint PRIMARY KEY, i int, big bigint, dec numeric(30,10), f float8, b boolean, t text, j json, by bytea, d date, ts timestamp(6), n text)`,
  mysql: `CREATE TABLE t_common_my (id bigint PRIMARY KEY, i int, big bigint, \`dec\` decimal(30,10), f double, b boolean, t text, j json, \`by\` blob, d date, ts datetime(6), n text) DEFAULT CHARSET utf8mb4`,
  mariadb: `CREATE TABLE t_common_ma (id bigint PRIMARY KEY, i int, big bigint, \`dec\` decimal(30,10), f double, b boolean, t text, j json, \`by\` blob, d date, ts datetime(6), n text) DEFAULT CHARSET utf8mb4`,
  sqlite: `CREATE TABLE t_common_sq (id INTEGER PRIMARY KEY, i INT, big BIGINT, dec DECIMAL(30,10), f DOUBLE, b BOOLEAN, t TEXT, j JSON, by BLOB, d DATE, ts DATETIME, n TEXT)`,
};
const TABLE: Record<TestDb['kind'], string> = { postgres: 't_common_pg', mysql: 't_common_my', mariadb: 't_common_ma', sqlite: 't_common_sq' };

const hex = (kind: TestDb['kind'], h: string): string => (kind === 'postgres' ? `'\\x${h}'::bytea` : `x'${h}'`);
const bool = (kind: TestDb['kind'], v: boolean): string => (kind === 'sqlite' ? (v ? '1' : '0') : String(v));

function inserts(kind: TestDb['kind']): string {
  // A tab, a quote, a backslash and an emoji; MySQL string literals need the backslash doubled.
  const raw = 'héllo "q" 😀 tab\there\\back';
  const text = `'${kind === 'postgres' || kind === 'sqlite' ? raw : raw.replace(/\\/g, '\\\\')}'`;
  return `INSERT INTO ${TABLE[kind]} VALUES
    (1, 42, 9007199254740993, 12345.6789, 1.5, ${bool(kind, true)}, ${text}, '{"p":30.00,"x":[1,2]}', ${hex(kind, '00ff10')}, '2024-02-29', '2024-01-02 03:04:05.123456', NULL),
    (2, -7, -9007199254740993, -0.5, -2.25, ${bool(kind, false)}, '', 'null', ${hex(kind, '')}, '1999-12-31', '2024-01-02 03:04:05', 'x')`;
}

const EXPECTED = [
  `{"id":1,"i":42,"big":"9007199254740993","dec":"12345.6789000000","f":1.5,"b":true,"t":"héllo \\"q\\" 😀 tab\\there\\\\back","j":{"p":30.00,"x":[1,2]},"by":"AP8Q","d":"2024-02-29","ts":"2024-01-02 03:04:05.123456","n":null}`,
  `{"id":2,"i":-7,"big":"-9007199254740993","dec":"-0.5000000000","f":-2.25,"b":false,"t":"","j":null,"by":"","d":"1999-12-31","ts":"2024-01-02 03:04:05","n":"x"}`,
];

describe('rows become the same JSON on every kind (decisions §4)', () => {
  let dbs: TestDb[];
  const dir = tempDir();
  beforeAll(async () => {
    dbs = await allKinds(path.join(dir, 'types.db'));
    for (const db of dbs) {
      await db.exec(`DROP TABLE IF EXISTS ${TABLE[db.kind]}`);
      await db.exec(DDL[db.kind]);
      await db.exec(inserts(db.kind));
    }
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
  });

  for (const kind of ['postgres', 'mysql', 'mariadb', 'sqlite'] as const) {
    it(`${kind}: every shared type renders exactly`, async () => {
      const db = dbs.find((d) => d.kind === kind)!;
      const r = await bridge(['copy', db.url(TABLE[kind]), '-', '-q']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const got = lines(r.stdout);
      // MySQL/MariaDB DATETIME(6) keeps trailing zeros of the declared precision.
      const want = kind === 'mysql' || kind === 'mariadb' ? EXPECTED.map((l) => l.replace('"2024-01-02 03:04:05"', '"2024-01-02 03:04:05.000000"')) : EXPECTED;
      expect(got).toEqual(want);
    });
  }

  it('postgres: big decimals, NaN/Infinity, timestamptz (text and rfc3339), arrays, uuid, jsonb', async () => {
    const db = dbs.find((d) => d.kind === 'postgres')!;
    await db.exec(`DROP TABLE IF EXISTS t_pg_only`);
    await db.exec(`CREATE TABLE t_pg_only (id int PRIMARY KEY, dec numeric, f float8, r real, tstz timestamptz(6), arr int[], tarr text[], u uuid, jb jsonb, big bigint)`);
    await db.exec(`INSERT INTO t_pg_only VALUES
      (1, 12345678901234567890.12345678901234567890, 'NaN', 'Infinity', '2024-01-02 03:04:05.123456+02', '{1,NULL,3}', '{"a b","c,d","q\\"x",NULL}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"p": 30.00}', 9007199254740991),
      (2, 'NaN', '-Infinity', 0.1, '1970-01-01 00:00:00+00', '{}', '{}', NULL, '[]', 9007199254740992)`);
    const text = await bridge(['copy', db.url('t_pg_only'), '-', '-q']);
    expect(text.exitCode).toBe(0);
    expect(lines(text.stdout)).toEqual([
      `{"id":1,"dec":"12345678901234567890.12345678901234567890","f":"NaN","r":"Infinity","tstz":"2024-01-02 01:04:05.123456+00","arr":[1,null,3],"tarr":["a b","c,d","q\\"x",null],"u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","jb":{"p": 30.00},"big":9007199254740991}`,
      `{"id":2,"dec":"NaN","f":"-Infinity","r":0.1,"tstz":"1970-01-01 00:00:00+00","arr":[],"tarr":[],"u":null,"jb":[],"big":"9007199254740992"}`,
    ]);
    const rfc = await bridge(['copy', db.url('t_pg_only', 'timestamps=rfc3339'), '-', '-q']);
    expect(lines(rfc.stdout).map((l) => (JSON.parse(l) as { tstz: string }).tstz)).toEqual(['2024-01-02T01:04:05.123456Z', '1970-01-01T00:00:00Z']);
  });

  it('mysql/mariadb: tinyint(1) as boolean, unsigned bigint, year, enum, timestamp, varbinary, MariaDB JSON', async () => {
    const db = dbs.find((d) => d.kind === 'mariadb')!;
    await db.exec(`DROP TABLE IF EXISTS t_my_only`);
    await db.exec(`CREATE TABLE t_my_only (id int PRIMARY KEY, flag tinyint(1), small tinyint, ub bigint unsigned, y year, e enum('a','b'), ts timestamp(3) NULL, vb varbinary(8), j json, fl float) DEFAULT CHARSET utf8mb4`);
    await db.exec(`INSERT INTO t_my_only VALUES (1, 1, -3, 18446744073709551615, 2024, 'b', '2024-01-02 03:04:05.123', x'0102', '{"a": 1.10}', 0.1)`);
    for (const scheme of ['mysql', 'mariadb'] as const) {
      const url = dbs.find((d) => d.kind === scheme)!.url('t_my_only');
      const r = await bridge(['copy', url, '-', '-q']);
      expect(r.exitCode).toBe(0);
      expect(lines(r.stdout)).toEqual([`{"id":1,"flag":true,"small":-3,"ub":"18446744073709551615","y":2024,"e":"b","ts":"2024-01-02 03:04:05.123","vb":"AQI=","j":{"a": 1.10},"fl":0.1}`]);
    }
  });

  it('sqlite: values that do not match the declared type render by what is stored', async () => {
    const db = dbs.find((d) => d.kind === 'sqlite')!;
    await db.exec(`DROP TABLE IF EXISTS t_sq_loose`);
    await db.exec(`CREATE TABLE t_sq_loose (id INTEGER PRIMARY KEY, n INT, j JSON, anything)`);
    await db.exec(`INSERT INTO t_sq_loose VALUES (1, 'not a number', 'not json', 2.5), (2, 99999999999999999, '{"ok":true}', x'41')`);
    const r = await bridge(['copy', db.url('t_sq_loose'), '-', '-q']);
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toEqual([`{"id":1,"n":"not a number","j":"not json","anything":2.5}`, `{"id":2,"n":"99999999999999999","j":{"ok":true},"anything":"QQ=="}`]);
  });
});
