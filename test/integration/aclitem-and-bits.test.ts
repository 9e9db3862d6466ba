import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: arrays of types outside the built-in list (aclitem[]) were read as one JSON string and
 * every value was rejected, even aclitem[] → aclitem[]; PostgreSQL bit(5) B'10101' into MySQL BIT(5)
 * was rejected as "more than 5 bits" (its characters were taken as bytes); MySQL BIT(64) into bit(64)
 * went as base64 and the server refused it without naming the field; the dry run said LOSSY for both.
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;
beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS t_acl_src, t_acl_dst, t_pgbits, t_mybits');
  await pg.exec('CREATE TABLE t_acl_src (id int PRIMARY KEY, a aclitem[], n inet[])');
  await pg.exec("INSERT INTO t_acl_src VALUES (1, '{postgres=arwdDxt/postgres,=r/postgres}', '{10.0.0.1/8,::1}'), (2, NULL, '{}')");
  await pg.exec('CREATE TABLE t_acl_dst (LIKE t_acl_src)');
  await pg.exec('CREATE TABLE t_pgbits (id int PRIMARY KEY, b bit(5), vb varbit(10))');
  await pg.exec("INSERT INTO t_pgbits VALUES (1, B'10101', B'101'), (2, B'00000', B''), (3, B'00001', B'1111111111')");
  await maria.exec('DROP TABLE IF EXISTS t_mybits');
  await maria.exec('CREATE TABLE t_mybits (id int PRIMARY KEY, b BIT(64), s BIT(5))');
  await maria.exec("INSERT INTO t_mybits VALUES (1, b'1000000000000000000000000000000000000000000000000000000000000001', b'10101'), (2, 0, b'1')");
});
afterAll(async () => {
  await pg.close();
  await maria.close();
});

describe('arrays of any PostgreSQL type', () => {
  it('aclitem[] and inet[] → an identical PostgreSQL table land exactly; → NDJSON as JSON arrays', async () => {
    const r = await bridge(['copy', pg.url('t_acl_src'), pg.url('t_acl_dst', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const q = (t: string) => pg.rows(`SELECT id, a::text AS a, n::text AS n FROM ${t} ORDER BY id`);
    expect(await q('t_acl_dst')).toEqual(await q('t_acl_src'));
    const out = path.join(dir, 'acl.ndjson');
    const n = await bridge(['copy', pg.url('t_acl_src'), `file://${out}`, '--progress', 'none']);
    expect(n.exitCode, n.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!)).toEqual({ id: 1, a: ['postgres=arwdDxt/postgres', '=r/postgres'], n: ['10.0.0.1/8', '::1'] });
  });
});

describe('bit strings between PostgreSQL and MySQL/MariaDB', () => {
  it('PostgreSQL bit(5) → MariaDB BIT(5) (created and existing) keeps the bits; the dry run does not call it LOSSY', async () => {
    await maria.exec('DROP TABLE IF EXISTS t_pgbits');
    const r = await bridge(['copy', pg.url('t_pgbits'), maria.url('t_pgbits', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await maria.rows("SELECT DATA_TYPE AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't_pgbits' AND COLUMN_NAME = 'b'")).toEqual([{ t: 'bit' }]);
    expect(await maria.rows('SELECT id, LPAD(BIN(b), 5, 0) AS b FROM t_pgbits ORDER BY id')).toEqual([{ id: 1, b: '10101' }, { id: 2, b: '00000' }, { id: 3, b: '00001' }]);
    const dry = await bridge(['copy', pg.url('t_pgbits'), maria.url('t_pgbits', 'columns=auto'), '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).not.toMatch(/ b bit\(5\) → .*LOSSY/);
  });

  it('MariaDB BIT(64) and BIT(5) → PostgreSQL bit(64)/bit(5) (created and existing) keep every bit', async () => {
    const want = [
      { id: 1, b: `1${'0'.repeat(62)}1`, s: '10101' },
      { id: 2, b: '0'.repeat(64), s: '00001' },
    ];
    for (const created of [true, false]) {
      if (created) await pg.exec('DROP TABLE IF EXISTS t_mybits');
      else await pg.exec('TRUNCATE t_mybits');
      const r = await bridge(['copy', maria.url('t_mybits'), pg.url('t_mybits', `columns=auto${created ? '&auto_create_table=true' : ''}`), '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(await pg.rows('SELECT id, b::text AS b, s::text AS s FROM t_mybits ORDER BY id')).toEqual(want);
    }
    expect(await pg.rows("SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 't_mybits'::regclass AND attname = 'b'")).toEqual([{ t: 'bit(64)' }]);
    const dry = await bridge(['copy', maria.url('t_mybits'), pg.url('t_mybits', 'columns=auto'), '--dry-run']);
    expect(dry.stdout).not.toMatch(/LOSSY/);
  });

  it('a bit string that does not fit bit(5) is rejected naming the field, exit 4', async () => {
    const src = writeNdjson(dir, 'bits.ndjson', [{ id: 9, b: '1010101', vb: '1' }]);
    const r = await bridge(['copy', src, pg.url('t_pgbits', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/field b has 7 bits; bit\(5\) takes exactly 5/);
  });
});
