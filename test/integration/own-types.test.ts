import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: typed creation between tables of the same kind made text of types the kind has built
 * in: PostgreSQL inet, money, point, tsvector and ranges; MariaDB INET4, INET6 and UUID. As text they
 * compare, sort and index otherwise. The created table keeps the source's own types.
 */
let pg: TestDb;
let maria: TestDb;
beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
});
afterAll(async () => {
  await pg.close();
  await maria.close();
});

describe('typed creation keeps a kind\'s own types', () => {
  it('PostgreSQL → PostgreSQL: inet, money, point, tsvector, tstzrange stay themselves, values equal', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_own_src, t_own_dst');
    await pg.exec('CREATE TABLE t_own_src (id int PRIMARY KEY, ip inet, m money, p point, tv tsvector, r tstzrange)');
    await pg.exec("INSERT INTO t_own_src VALUES (1, '10.0.0.1/8', '12.34', '(1.5,2)', 'a fat cat', '[2024-01-01 00:00+00,2024-01-02 00:00+00)')");
    const r = await bridge(['copy', pg.url('t_own_src'), pg.url('t_own_dst', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const types = await pg.rows("SELECT attname AS c, format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 't_own_dst'::regclass AND attnum > 0 ORDER BY attnum");
    expect(types.map((x) => x.t)).toEqual(['integer', 'inet', 'money', 'point', 'tsvector', 'tstzrange']);
    const q = (t: string) => pg.rows(`SELECT ip::text, m::text, p::text, tv::text, r::text FROM ${t}`);
    expect(await q('t_own_dst')).toEqual(await q('t_own_src'));
  });

  it('MariaDB → MariaDB: INET4, INET6 and UUID stay themselves, values equal', async () => {
    await maria.exec('DROP TABLE IF EXISTS t_own_src');
    await maria.exec('DROP TABLE IF EXISTS t_own_dst');
    await maria.exec('CREATE TABLE t_own_src (id int PRIMARY KEY, a INET6, b INET4, u UUID)');
    await maria.exec("INSERT INTO t_own_src VALUES (1, '::ffff:1.2.3.4', '10.0.0.1', '123e4567-e89b-12d3-a456-426614174000')");
    const r = await bridge(['copy', maria.url('t_own_src'), maria.url('t_own_dst', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const types = await maria.rows("SELECT DATA_TYPE AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't_own_dst' ORDER BY ORDINAL_POSITION");
    expect(types.map((x) => String(x.t).toLowerCase())).toEqual(['int', 'inet6', 'inet4', 'uuid']);
    expect(await maria.rows('SELECT CAST(a AS CHAR) a, CAST(b AS CHAR) b, CAST(u AS CHAR) u FROM t_own_dst')).toEqual(await maria.rows('SELECT CAST(a AS CHAR) a, CAST(b AS CHAR) b, CAST(u AS CHAR) u FROM t_own_src'));
  });
});
