import { createHash } from 'node:crypto';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { MARIADB_URL, PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 16's migration: a 10-table schema (pgbench's four tables, pgbench_history without a
 * primary key, and six tables of the round-trip types with their edge values) goes MariaDB →
 * PostgreSQL → SQLite → MariaDB, one command per hop, into tables bridge creates. Each table's
 * content hash after a hop equals its source's.
 */
const SERVER = MARIADB_URL.slice(0, MARIADB_URL.lastIndexOf('/'));
const SRC = `${SERVER}/mig_src`;
const BACK = `${SERVER}/mig_back`;

const SCHEMA = [
  'CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84))',
  'CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88))',
  'CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84))',
  'CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime datetime, filler char(22))',
  'CREATE TABLE t_ints (id int PRIMARY KEY, ti tinyint, si smallint, mi mediumint, i int, bi bigint, ui int unsigned, ubi bigint unsigned, b boolean)',
  'CREATE TABLE t_nums (id int PRIMARY KEY, d decimal(30,10), m decimal(12,2), f double, r float)',
  "CREATE TABLE t_text (id int PRIMARY KEY, v varchar(200), t text, c char(10), e enum('small','large'), lt longtext) DEFAULT CHARSET utf8mb4",
  'CREATE TABLE t_bin (id int PRIMARY KEY, b blob, vb varbinary(16))',
  'CREATE TABLE t_time (id int PRIMARY KEY, d date, dt datetime(6), t time(6), y year, ts timestamp(6) NULL)',
  'CREATE TABLE t_json (id int PRIMARY KEY, j json, n text)',
];

const DATA = [
  "INSERT INTO pgbench_accounts SELECT seq, 1 + seq DIV 1000, CAST(seq AS SIGNED) * 7 - 3000, CONCAT('acct ', seq) FROM seq_1_to_3000",
  "INSERT INTO pgbench_branches VALUES (1, 0, 'branch one'), (2, -5, NULL), (3, 17, '')",
  "INSERT INTO pgbench_tellers SELECT seq, 1 + seq % 3, CAST(seq AS SIGNED) - 15, NULL FROM seq_1_to_30",
  "INSERT INTO pgbench_history SELECT seq % 30, 1 + seq % 3, seq, CAST(seq AS SIGNED) - 600, '2024-02-29 23:59:59' - INTERVAL seq MINUTE, IF(seq % 2, NULL, 'h') FROM seq_1_to_1200",
  'INSERT INTO pgbench_history SELECT 1, 1, 1, 1, NULL, NULL FROM seq_1_to_3',
  `INSERT INTO t_ints VALUES (1, -128, -32768, -8388608, -2147483648, -9223372036854775808, 0, 0, false),
     (2, 127, 32767, 8388607, 2147483647, 9223372036854775807, 4294967295, 18446744073709551615, true),
     (3, 0, 0, 0, 0, 9007199254740993, 1, 9007199254740993, NULL), (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `INSERT INTO t_nums VALUES (1, 12345678901234567890.1234567890, 9999999999.99, 1.7976931348623157e308, 1.5),
     (2, -0.0000000001, -0.01, 5e-324, -3.25), (3, 0, 0, 0.1, 16777216), (4, NULL, NULL, NULL, NULL), (5, 1, 30.00, -2.5e-10, 0.5)`,
  `INSERT INTO t_text VALUES (1, 'héllo "q" \\\\ back', 'tab\\there\\nnew line\\r\\n😀 ''quoted''', 'pad', 'small', REPEAT('long ', 20000)),
     (2, '', '', '', 'large', ''), (3, NULL, NULL, NULL, NULL, NULL), (4, '\\\\N', 'NULL', 'x', 'small', '日本語テキスト')`,
  "INSERT INTO t_bin VALUES (1, x'00ff10', x'00'), (2, x'', x''), (3, NULL, NULL), (4, REPEAT(x'deadbeef', 5000), x'0102030405060708090a0b0c0d0e0f10')",
  `INSERT INTO t_time VALUES (1, '1000-01-01', '1000-01-01 00:00:00.000000', '00:00:00', 1901, '1970-01-01 00:00:01.000000'),
     (2, '9999-12-31', '9999-12-31 23:59:59.999999', '23:59:59.999999', 2155, '2038-01-19 03:14:07.999999'),
     (3, '2024-02-29', '2024-02-29 12:34:56.5', '12:00:00.000001', 0, NULL), (4, NULL, NULL, NULL, NULL, NULL)`,
  `INSERT INTO t_json VALUES (1, '{"a":30.00,"b":[1,2,{"c":null}],"s":"x\\\\ty"}', 'plain'), (2, '[]', NULL), (3, '"text"', ''),
     (4, '12345678901234567890', 'n'), (5, NULL, NULL), (6, '{"nested":{"deep":[true,false]}}', 'ok')`,
];
const TABLES = SCHEMA.map((s) => /CREATE TABLE (\w+)/.exec(s)![1]!);
/** CHAR(n) compares without its trailing spaces (PostgreSQL pads it, MariaDB strips them). */
const CHAR_COLUMNS = new Set(['filler', 'c']);

/** NDJSON numbers kept as their text (JSON.parse would round a 30-digit decimal). */
function quoteNumbers(line: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += line[++i];
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (/[-0-9]/.test(ch)) {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(line.slice(i))![0];
      out += JSON.stringify(`#${m}`);
      i += m.length - 1;
    } else out += ch;
  }
  return out;
}

/** `16777216`, `1.6777216e+07` and `16777216.0` → one spelling: significant digits and exponent. */
function decimal(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const digits = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '');
  if (digits === '') return m[1] ? '-0' : '0';
  const exp = Number(m[4] ?? 0) + m[2]!.replace(/^0+/, '').length - (m[2]!.replace(/^0+/, '') === '' ? (m[3] ?? '').length - (m[3] ?? '').replace(/^0+/, '').length : 0);
  return `${m[1]}0.${digits.replace(/0+$/, '')}e${exp}`;
}

/** One spelling per value: numbers without trailing zeros, instants without zone or trailing zeros, booleans as 0/1, JSON with sorted keys. */
function canon(v: unknown, column?: string): unknown {
  if (v === null || v === undefined) return null;
  if (v === true || v === false) return v ? '#1' : '#0';
  if (Array.isArray(v)) return v.map((x) => canon(x));
  if (typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]));
  let s = String(v);
  // Integers beyond 2^53 print as JSON strings on some kinds and numbers on others: same value.
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s)) s = `#${s}`;
  if (s.startsWith('#')) s = `#${decimal(s.slice(1))}`;
  const ts = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?(?:Z|[+-]00(?::?00)?)?$/.exec(s);
  if (ts) s = `${ts[1]} ${ts[2]}${(ts[3] ?? '').replace(/\.?0+$/, '')}`;
  const time = /^(\d\d:\d\d:\d\d)(\.\d+)?$/.exec(s);
  if (time) s = `${time[1]}${(time[2] ?? '').replace(/\.?0+$/, '')}`;
  if (column && CHAR_COLUMNS.has(column)) s = s.replace(/ +$/, '');
  return s;
}

async function contentHash(url: string): Promise<{ rows: number; hash: string }> {
  const r = await bridge(['copy', url, '-', '-q']);
  expect(r.stderr).toBe('');
  const lines = r.stdout.split('\n').filter(Boolean);
  const canonical = lines.map((l) => {
    const row = JSON.parse(quoteNumbers(l)) as Record<string, unknown>;
    return JSON.stringify(Object.keys(row).map((k) => [k, canon(row[k], k)]));
  });
  return { rows: lines.length, hash: createHash('sha256').update(canonical.sort().join('\n')).digest('hex') };
}

describe('migrate a 10-table schema, one command per hop, into created typed tables', () => {
  const dir = tempDir();
  const lite = path.join(dir, 'mig.db');
  let my: mysql.Connection;
  let pg: TestDb;
  const hashes: Record<string, { rows: number; hash: string }> = {};

  beforeAll(async () => {
    my = await mysql.createConnection({ uri: `${SERVER.replace(/^mariadb:/, 'mysql:')}/test`, multipleStatements: true });
    await my.query("SET time_zone = '+00:00'");
    await my.query('DROP DATABASE IF EXISTS mig_src; CREATE DATABASE mig_src; DROP DATABASE IF EXISTS mig_back; CREATE DATABASE mig_back; USE mig_src');
    for (const s of [...SCHEMA, ...DATA]) await my.query(s);
    pg = await postgres();
    await pg.exec('DROP SCHEMA IF EXISTS mig CASCADE; CREATE SCHEMA mig');
    for (const t of TABLES) hashes[t] = await contentHash(`${SRC}?table=${t}`);
    expect(hashes.pgbench_accounts!.rows).toBe(3000);
    expect(hashes.pgbench_history!.rows).toBe(1203);
  }, 120_000);
  afterAll(async () => {
    await my?.end();
    await pg?.close();
  });

  const hop = async (from: string, to: string, read: (t: string) => string): Promise<void> => {
    const r = await bridge(['copy', from, to, '--parallel', '2', '--progress', 'plain']);
    expect({ code: r.exitCode, err: r.stderr.split('\n').filter((l) => / error: |failed/.test(l)) }).toEqual({ code: 0, err: [] });
    expect(r.stderr).toMatch(/bridge copy: 10 tables: 10 done; 4,263 rows/);
    for (const t of TABLES) expect({ t, ...(await contentHash(read(t))) }).toEqual({ t, ...hashes[t] });
  };

  it('MariaDB → PostgreSQL (table=* into schema mig)', async () => {
    await hop(`${SRC}?table=*`, `${PG_URL}?table=mig.*&columns=auto&auto_create_table=true`, (t) => `${PG_URL}?table=mig.${t}`);
    const types = await pg.rows("SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'mig' AND table_name IN ('t_ints', 't_json') ORDER BY table_name, ordinal_position");
    // json, not jsonb: MariaDB's document text (30.00, key order) is kept as written.
    expect(types.map((c) => `${c.table_name as string}.${c.column_name as string} ${c.data_type as string}`)).toContain('t_json.j json');
  }, 180_000);

  it('PostgreSQL → SQLite (table=mig.*)', async () => {
    await hop(`${PG_URL}?table=mig.*`, `sqlite://${lite}?columns=auto&auto_create_table=true`, (t) => `sqlite://${lite}?table=${t}`);
  }, 180_000);

  it('SQLite → MariaDB (table=*, every table of the file)', async () => {
    await hop(`sqlite://${lite}?table=*`, `${BACK}?columns=auto&auto_create_table=true`, (t) => `${BACK}?table=${t}`);
  }, 180_000);

  it('a MariaDB table without a primary key keeps FLOAT exact (read as DOUBLE, not the 6 digits the text protocol prints)', async () => {
    await my.query('USE mig_src; DROP TABLE IF EXISTS keyless_float; CREATE TABLE keyless_float (f float, d double); INSERT INTO keyless_float VALUES (16777216, 0.1), (1.1, -2.5e-10), (NULL, NULL)');
    await pg.exec('DROP TABLE IF EXISTS mig.keyless_float');
    const r = await bridge(['copy', `${SRC}?table=keyless_float`, `${PG_URL}?table=mig.keyless_float&columns=auto&auto_create_table=true`, '-q']);
    expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
    const rows = await pg.rows('SELECT f::float8::text AS f, d::text AS d FROM mig.keyless_float ORDER BY f NULLS LAST');
    expect(rows).toEqual([{ f: '1.100000023841858', d: '-2.5e-10' }, { f: '16777216', d: '0.1' }, { f: null, d: null }]);
  }, 60_000);
});
