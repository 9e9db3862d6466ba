import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { allKinds, type TestDb } from '../helpers/databases.js';

/**
 * Issue 3's type matrix: the same table on every kind, copied with columns=auto to every kind (16
 * ordered pairs). Values compare equal after the round trip (MySQL/MariaDB print DATETIME(6) with
 * all six fractional digits). SQLite keeps a 30-digit decimal as TEXT, as bridge creates it: a
 * DECIMAL column would hold a REAL (test/roundtrip covers every type and edge).
 */
type Kind = TestDb['kind'];
const KINDS: Kind[] = ['postgres', 'mysql', 'mariadb', 'sqlite'];

const ddl = (kind: Kind, t: string): string =>
  ({
    postgres: `CREATE TABLE ${t} (id bigint PRIMARY KEY, i int, big bigint, dec numeric(30,10), f float8, b boolean, t text, j json, by bytea, d date, ts timestamp(6), n text)`,
    mysql: `CREATE TABLE ${t} (id bigint PRIMARY KEY, i int, big bigint, \`dec\` decimal(30,10), f double, b boolean, t text, j json, \`by\` blob, d date, ts datetime(6), n text) DEFAULT CHARSET utf8mb4`,
    mariadb: `CREATE TABLE ${t} (id bigint PRIMARY KEY, i int, big bigint, \`dec\` decimal(30,10), f double, b boolean, t text, j json, \`by\` blob, d date, ts datetime(6), n text) DEFAULT CHARSET utf8mb4`,
    sqlite: `CREATE TABLE ${t} (id INTEGER PRIMARY KEY, i INT, big BIGINT, dec TEXT, f DOUBLE, b BOOLEAN, t TEXT, j JSON, by BLOB, d DATE, ts DATETIME, n TEXT)`,
  })[kind];

function rows(kind: Kind, t: string): string {
  const bytes = (h: string): string => (kind === 'postgres' ? `'\\x${h}'::bytea` : `x'${h}'`);
  const bool = (v: boolean): string => (kind === 'sqlite' ? (v ? '1' : '0') : String(v));
  const text = (s: string): string => `'${kind === 'postgres' || kind === 'sqlite' ? s : s.replace(/\\/g, '\\\\')}'`;
  const nl = kind === 'postgres' ? `E'line\\nbreak'` : kind === 'sqlite' ? `'line' || char(10) || 'break'` : `'line\\nbreak'`;
  const dec = (v: string): string => (kind === 'sqlite' ? `'${v}'` : v);
  return `INSERT INTO ${t} VALUES
    (1, 42, 9007199254740993, ${dec('12345678901234567890.1234567890')}, 1.5, ${bool(true)}, ${text('héllo "q" 😀 tab\there\\back')}, '{"p":30.00,"x":[1,2]}', ${bytes('00ff10')}, '2024-02-29', '2024-01-02 03:04:05.123456', NULL),
    (2, -7, -9007199254740993, ${dec('-0.5')}, -2.25, ${bool(false)}, '', '[]', ${bytes('')}, '1999-12-31', '2024-01-02 03:04:05', 'x'),
    (3, 0, 0, ${dec('0.0000000001')}, 0.1, ${bool(true)}, ${nl}, '{"deep":{"a":[true,null,"s"]}}', ${bytes('ff')}, '2000-01-01', '1970-01-01 00:00:00.000001', '')`;
}

type Row = Record<string, unknown>;
/** MySQL prints DATETIME(6) with all digits: compare instants, not trailing zeros. */
const normTs = (r: Row): Row => ({ ...r, ts: typeof r.ts === 'string' ? r.ts.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') : r.ts });

describe('type matrix: columns=auto between every pair of kinds', () => {
  const dir = tempDir();
  let dbs: TestDb[];
  const db = (k: Kind): TestDb => dbs.find((d) => d.kind === k)!;
  const read = async (k: Kind, t: string): Promise<Row[]> => {
    const r = await bridge(['copy', db(k).url(t), '-', '-q']);
    expect(r.stderr).toBe('');
    return parseLines(r.stdout) as Row[];
  };
  const source: Partial<Record<Kind, Row[]>> = {};

  beforeAll(async () => {
    dbs = await allKinds(path.join(dir, 'matrix.db'));
    for (const k of KINDS) {
      const t = `m_src_${k}`;
      await db(k).exec(`DROP TABLE IF EXISTS ${t}`);
      await db(k).exec(ddl(k, t));
      await db(k).exec(rows(k, t));
      source[k] = await read(k, t);
    }
  });
  afterAll(async () => {
    for (const d of dbs) await d.close();
  });

  for (const from of KINDS)
    for (const to of KINDS)
      it(`${from} → ${to}`, async () => {
        const t = `m_${from}_${to}`;
        await db(to).exec(`DROP TABLE IF EXISTS ${t}`);
        await db(to).exec(ddl(to, t));
        const r = await bridge(['copy', db(from).url(`m_src_${from}`), db(to).url(t, 'columns=auto&key=id'), '-q']);
        expect(r.stderr).toBe('');
        expect(r.exitCode).toBe(0);
        const got = (await read(to, t)).map(normTs);
        const normDec = (r: Row): Row => ({ ...r, dec: typeof r.dec === 'string' ? r.dec.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') : r.dec });
        expect(got.map(normDec)).toEqual(source[from]!.map(normTs).map(normDec));
      });

  it('postgres → postgres keeps what only PostgreSQL has: NaN/Infinity, arrays, uuid, jsonb, timestamptz, interval', async () => {
    const pg = db('postgres');
    const cols = 'id int PRIMARY KEY, f float8, r real, dec numeric, arr int[], tarr text[], u uuid, jb jsonb, tstz timestamptz, iv interval, big bigint';
    await pg.exec(`DROP TABLE IF EXISTS m_pg_only; CREATE TABLE m_pg_only (${cols}); DROP TABLE IF EXISTS m_pg_only2; CREATE TABLE m_pg_only2 (${cols})`);
    await pg.exec(`INSERT INTO m_pg_only VALUES
      (1, 'NaN', '-Infinity', 'NaN', '{1,NULL,3}', '{"a b","c,d","q\\"x",NULL}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"p": 30.00, "z": [1.10]}', '2024-01-02 03:04:05.123456+02', '1 day 02:03:04.5', 9223372036854775807),
      (2, 'Infinity', 0.1, 12345678901234567890.123456789012345678, '{}', '{}', NULL, 'null', '1970-01-01 00:00:00+00', '-3 months', -9223372036854775808)`);
    const r = await bridge(['copy', pg.url('m_pg_only'), pg.url('m_pg_only2', 'columns=auto'), '-q']);
    expect(r.exitCode).toBe(0);
    expect(await read('postgres', 'm_pg_only2')).toEqual(await read('postgres', 'm_pg_only'));
  });

  it('timestamptz into a MySQL DATETIME arrives as the same instant in UTC', async () => {
    const my = db('mariadb');
    await my.exec('DROP TABLE IF EXISTS m_tz; CREATE TABLE m_tz (id int PRIMARY KEY, tstz datetime(6))');
    await db('postgres').exec("DROP TABLE IF EXISTS m_tz; CREATE TABLE m_tz (id int PRIMARY KEY, tstz timestamptz); INSERT INTO m_tz VALUES (1, '2024-01-02 03:04:05.123456+02')");
    for (const ts of ['text', 'rfc3339']) {
      await my.exec('DELETE FROM m_tz');
      const r = await bridge(['copy', db('postgres').url('m_tz', `timestamps=${ts}`), my.url('m_tz', 'columns=auto'), '-q']);
      expect(r.exitCode).toBe(0);
      expect(await read('mariadb', 'm_tz')).toEqual([{ id: 1, tstz: '2024-01-02 01:04:05.123456' }]);
    }
  });

  it('values the target type cannot hold are rejected, not rounded: fractions of DATETIME(0), NaN into DOUBLE', async () => {
    const pg = db('postgres');
    const my = db('mariadb');
    await pg.exec("DROP TABLE IF EXISTS m_loss; CREATE TABLE m_loss (id int PRIMARY KEY, ts timestamp(6), f float8); INSERT INTO m_loss VALUES (1, '2024-01-02 03:04:05.987654', 1.5), (2, NULL, 'NaN'), (3, '2024-01-02 03:04:05', 2.5)");
    await my.exec('DROP TABLE IF EXISTS m_loss; CREATE TABLE m_loss (id int PRIMARY KEY, ts datetime, f double)');
    const rejects = path.join(dir, 'loss-rejects.ndjson');
    const r = await bridge(['copy', pg.url('m_loss'), my.url('m_loss', 'columns=auto'), '--dead-letter', `file://${rejects}`]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/done: 1 rows .* 2 dead-lettered/);
    expect(await read('mariadb', 'm_loss')).toEqual([{ id: 3, ts: '2024-01-02 03:04:05', f: 2.5 }]);
    const dead = parseLines((await import('node:fs')).readFileSync(rejects, 'utf8')) as { payload: { id: number }; metadata: Record<string, string> }[];
    expect(dead.map((d) => d.payload.id)).toEqual([1, 2]);
    expect(dead[0]!.metadata['bridge.error']).toMatch(/field ts is "2024-01-02 03:04:05.987654": datetime keeps 0 fractional digits and would round it/);
    expect(dead[1]!.metadata['bridge.error']).toMatch(/field f is NaN, which double cannot hold/);
  });

  it('a SQLite DECIMAL holding more digits than a REAL keeps is rejected, not rounded', async () => {
    const lite = db('sqlite');
    await lite.exec('DROP TABLE IF EXISTS m_dec; CREATE TABLE m_dec (id INTEGER PRIMARY KEY, dec DECIMAL(30,10))');
    const r = await bridge(['copy', db('postgres').url('m_src_postgres'), lite.url('m_dec', 'columns=auto'), '-q']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/field dec is "12345678901234567890.1234567890": SQLite would keep it as a REAL and round it/);
  });
});
