import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, waitFor } from '../helpers/bridge.js';
import { MYSQL_URL, mysqlLike, PG_URL, postgres, type TestDb } from '../helpers/databases.js';

// This run's MariaDB database (test, or a worker's own: test/helpers/worker-databases.ts).
const DB = MYSQL_URL.slice(MYSQL_URL.lastIndexOf('/') + 1);

let pgdb: TestDb;
let my: TestDb;
beforeAll(async () => {
  pgdb = await postgres();
  my = await mysqlLike('mariadb');
  await pgdb.exec('DROP TABLE IF EXISTS t_pool; CREATE TABLE t_pool (id int PRIMARY KEY)');
  await pgdb.exec('INSERT INTO t_pool SELECT g FROM generate_series(1, 50) g');
  await my.exec("CREATE USER IF NOT EXISTS 'bridge_u'@'%' IDENTIFIED BY 'RightPassw0rd'");
  await my.exec("CREATE USER IF NOT EXISTS 'bridge_u'@'localhost' IDENTIFIED BY 'RightPassw0rd'");
  await my.exec(`GRANT ALL ON ${DB}.* TO 'bridge_u'@'%'`);
  await my.exec(`GRANT ALL ON ${DB}.* TO 'bridge_u'@'localhost'`);
  await my.exec('DROP TABLE IF EXISTS t_pool_my; CREATE TABLE t_pool_my (id int PRIMARY KEY)');
  await my.exec('INSERT INTO t_pool_my VALUES (1), (2)');
});
afterAll(async () => {
  await pgdb.close();
  await my.close();
});

describe('pool fields and credentials', () => {
  it('min_connections opens that many connections at start and keeps them', async () => {
    const p = spawnBridge(['tail', `${PG_URL}?table=t_pool&cursor_column=id&min_connections=3&application_name=bridge_pool_test`, 'file:///dev/null', '--progress', 'none']);
    const n = await waitFor(async () => {
      const r = await pgdb.rows(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'bridge_pool_test'`);
      return (r[0]!.n as number) >= 3 ? (r[0]!.n as number) : undefined;
    });
    expect(n).toBe(3);
    p.kill('SIGTERM');
    expect((await p).exitCode).toBe(0);
  });

  it('max_connections=1 still moves everything (reads and checkpoint share one connection)', async () => {
    await pgdb.exec('DROP TABLE IF EXISTS bridge_cursors_t_pool');
    const r = await bridge(['copy', `${PG_URL}?table=t_pool&cursor_column=id&cursor_id=p1&max_connections=1&test_before_acquire=true`, '-', '--batch-size', '7', '-q']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(50);
  });

  it('username/password fields take precedence over the URL userinfo', async () => {
    const wrong = await bridge(['copy', `mysql://bridge_u:WrongPassw0rd@127.0.0.1:3306/${DB}?table=t_pool_my`, '-', '-q']);
    expect(wrong.exitCode).toBe(3);
    const right = await bridge(['copy', `mysql://bridge_u:WrongPassw0rd@127.0.0.1:3306/${DB}?table=t_pool_my&password=RightPassw0rd`, '-', '-q']);
    expect(right.exitCode).toBe(0);
    expect(right.stdout).toBe('{"id":1}\n{"id":2}');
    const user = await bridge(['copy', `mysql://nobody@127.0.0.1:3306/${DB}?table=t_pool_my&username=bridge_u&password=RightPassw0rd`, '-', '-q']);
    expect(user.exitCode).toBe(0);
    for (const r of [wrong, right, user]) expect(r.stderr).not.toMatch(/WrongPassw0rd|RightPassw0rd/);
  });
});
