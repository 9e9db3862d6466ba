import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { mssqlPoolFactory, type MssqlConnection } from '../../src/connectors/sqlserver/driver.js';
import { bridge, lines, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * SQL Server (issue 8) against a live server: runs when BRIDGE_TEST_MSSQL_URL names one
 * (e.g. sqlserver://sa:Passw0rd!@127.0.0.1:1433/bridge_test), reported as skipped otherwise.
 */
const URL = process.env.BRIDGE_TEST_MSSQL_URL;
const dir = tempDir();

describe.skipIf(!URL)('SQL Server', () => {
  let conn: MssqlConnection;
  let pg: TestDb;
  const exec = (sql: string) => conn.query(sql);
  const rows = async (sql: string) => (await conn.query(sql)).rows;
  const url = (t: string, q = '') => `${URL}?table=${t}${q ? `&${q}` : ''}`;

  beforeAll(async () => {
    conn = await mssqlPoolFactory(resolveEndpoint(url('x'), 'consumer', specForScheme), () => {}).create();
    pg = await postgres();
  });
  afterAll(async () => {
    conn?.conn.close();
    await pg?.close();
  });

  it('renders every type as decisions §4 says (datetime2 keeps 7 digits, decimals exact)', async () => {
    await exec(`IF OBJECT_ID('ms_types') IS NOT NULL DROP TABLE ms_types`);
    await exec(`CREATE TABLE ms_types (id bigint PRIMARY KEY, i int, big bigint, dec decimal(30,10), f float, b bit, t nvarchar(100), u uniqueidentifier, by varbinary(10), d date, ts datetime2(7), tz datetimeoffset(7), n nvarchar(10))`);
    await exec(`INSERT INTO ms_types VALUES (1, 42, 9007199254740993, 12345678901234567890.1234567890, 1.5, 1, N'héllo "q"', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 0x00FF10, '2024-02-29', '2024-01-02 03:04:05.1234567', '2024-01-02 03:04:05.1234567 +02:00', NULL)`);
    const r = await bridge(['copy', url('ms_types'), '-', '-q']);
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '{"id":1,"i":42,"big":"9007199254740993","dec":"12345678901234567890.1234567890","f":1.5,"b":true,"t":"héllo \\"q\\"","u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","by":"AP8Q","d":"2024-02-29","ts":"2024-01-02 03:04:05.1234567","tz":"2024-01-02 03:04:05.1234567 +02:00","n":null}',
    ]);
  });

  // Ties, resume, queue draining by two processes, rejections and reconnection: test/conformance (SQL Server joins its list).

  it('select_query binds the batch size to @p1', async () => {
    const r = await bridge(['copy', url('ms_ties', 'select_query=DELETE TOP (@p1) FROM ms_ties OUTPUT deleted.*'), '-', '--batch-size', '5', '-q']);
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toHaveLength(15);
  });

  it('columns=auto with key (MERGE) round-trips PostgreSQL → SQL Server → PostgreSQL', async () => {
    await pg.exec(`DROP TABLE IF EXISTS ms_rt; CREATE TABLE ms_rt (id bigint PRIMARY KEY, amount numeric(30,10), at timestamp(6), t text, b boolean, raw bytea); INSERT INTO ms_rt VALUES (1, 12345678901234567890.1234567890, '2024-01-02 03:04:05.123456', 'x', true, '\\x00ff'), (2, -0.5, '1999-12-31 23:59:59', '', false, '')`);
    await exec(`IF OBJECT_ID('ms_rt') IS NOT NULL DROP TABLE ms_rt; CREATE TABLE ms_rt (id bigint PRIMARY KEY, amount decimal(30,10), at datetime2(6), t nvarchar(max), b bit, raw varbinary(max))`);
    for (let i = 0; i < 2; i++) expect((await bridge(['copy', `${PG_URL}?table=ms_rt`, url('ms_rt', 'columns=auto&key=id'), '-q'])).exitCode).toBe(0);
    expect(await rows('SELECT COUNT(*) FROM ms_rt')).toEqual([[2]]);
    await pg.exec('DROP TABLE IF EXISTS ms_rt_back; CREATE TABLE ms_rt_back (LIKE ms_rt)');
    expect((await bridge(['copy', url('ms_rt'), `${PG_URL}?table=ms_rt_back&columns=auto`, '-q'])).exitCode).toBe(0);
    expect(await pg.rows('SELECT * FROM ms_rt_back ORDER BY id')).toEqual(await pg.rows('SELECT * FROM ms_rt ORDER BY id'));
  });

  it('token inserts, lookups and the bulk-load path of large batches', async () => {
    await exec(`IF OBJECT_ID('ms_tok') IS NOT NULL DROP TABLE ms_tok; CREATE TABLE ms_tok (id int PRIMARY KEY, name nvarchar(20))`);
    const fixture = path.join(dir, 'tok.ndjson');
    writeFileSync(fixture, Array.from({ length: 500 }, (_, i) => JSON.stringify({ id: i, name: `n${i}` })).join('\n') + '\n');
    const q = encodeURIComponent('INSERT INTO ms_tok (id, name) VALUES (${payload:id}, ${payload:name})');
    expect((await bridge(['copy', `file://${fixture}`, url('ms_tok', `insert_query=${q}`), '-q'])).exitCode).toBe(0);
    const out = path.join(dir, 'answers.ndjson');
    const lq = encodeURIComponent('SELECT * FROM ms_tok WHERE id IN (${payload:id})');
    await bridge(['copy', `file://${fixture}`, url('ms_tok', `lookup_query=${lq}`), `file://${out}`, '-q']);
    expect(lines(readFileSync(out, 'utf8'))[7]).toBe('{"id":7,"name":"n7"}');
    await exec(`IF OBJECT_ID('ms_bulk') IS NOT NULL DROP TABLE ms_bulk`);
    const big = await bridge(['copy', `file://${fixture}`, url('ms_bulk', 'auto_create_table=true'), '--batch-size', '500']);
    expect(big.exitCode).toBe(0);
    expect(big.stderr).not.toMatch(/bulk load failed/);
    expect(await rows('SELECT COUNT(*) FROM ms_bulk')).toEqual([[500]]);
  });

  it('exactly once (issue 28): a refused position rolls back its batch (INSERTs and the bulk path alike); the next run resumes from the sink', async () => {
    await pg.exec('DROP TABLE IF EXISTS ms_eo; CREATE TABLE ms_eo (id bigint PRIMARY KEY, v text); INSERT INTO ms_eo SELECT g, md5(g::text) FROM generate_series(1, 1000) g; DROP TABLE IF EXISTS bridge_cursors_ms_eo');
    for (const [t, batch] of [['ms_eo_ins', '100'], ['ms_eo_bulk', '300']] as const) {
      await exec(`IF OBJECT_ID('${t}') IS NOT NULL DROP TABLE ${t}; CREATE TABLE ${t} (id bigint, v nvarchar(40))`);
      // The position table as bridge makes it, with a trigger that refuses the third batch's position.
      await exec("IF OBJECT_ID(N'bridge_positions', N'U') IS NULL CREATE TABLE bridge_positions (route NVARCHAR(255) NOT NULL PRIMARY KEY, last_position NVARCHAR(MAX) NOT NULL, seq BIGINT NOT NULL, updated_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME())");
      await exec(`DELETE FROM bridge_positions WHERE route LIKE '${t}@%'`);
      await exec("IF OBJECT_ID('eo_refuse') IS NOT NULL DROP TRIGGER eo_refuse");
      await exec("CREATE TRIGGER eo_refuse ON bridge_positions AFTER UPDATE AS IF EXISTS (SELECT 1 FROM inserted WHERE seq = 3) THROW 50000, 'position refused (test)', 1");
      const args = ['copy', `${PG_URL}?table=ms_eo&cursor_column=id&cursor_id=${t}`, url(t, 'columns=auto'), '--batch-size', batch, '--progress', 'none'];
      const refused = await bridge(args);
      await exec('DROP TRIGGER eo_refuse');
      expect(refused.exitCode, refused.stderr).not.toBe(0);
      const kept = await rows(`SELECT last_position FROM bridge_positions WHERE route LIKE '${t}@%'`);
      const upTo = Number((JSON.parse(String(kept[0]![0])) as { frontier: { value: string } }).frontier.value);
      expect((await rows(`SELECT COUNT(*), MAX(id) FROM ${t}`))[0]!.map(Number)).toEqual([upTo, upTo]);
      await pg.exec(`DELETE FROM bridge_cursors_ms_eo WHERE cursor_id = '${t}'`);
      const again = await bridge(args);
      expect(again.exitCode, again.stderr).toBe(0);
      expect((await rows(`SELECT COUNT(*), COUNT(DISTINCT id) FROM ${t}`))[0]!.map(Number)).toEqual([1000, 1000]);
    }
  });
});
