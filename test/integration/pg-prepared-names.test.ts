import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgConnection } from '../../src/connectors/postgres/driver.js';
import { PG_URL } from '../helpers/databases.js';

/**
 * A listener's multi-row INSERTs are named statements (parsed once per connection). A pooler that
 * moves sessions between servers between transactions (PgBouncer's transaction mode before 1.21)
 * loses them: here the server forgets them (DEALLOCATE ALL) while the client still thinks them prepared.
 */
describe('PostgreSQL statements run again are prepared once per connection', () => {
  const client = new pg.Client({ connectionString: PG_URL });
  const conn = new PgConnection(client);
  const insert = 'INSERT INTO prepared_names (n, t) VALUES ($1::integer, $2::text), ($3::integer, $4::text)';
  const prepared = async () => (await client.query("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'bridge_%'")).rows[0].n as number;

  beforeAll(async () => {
    await client.connect();
    await client.query('DROP TABLE IF EXISTS prepared_names; CREATE TABLE prepared_names (n integer, t text)');
  });
  afterAll(async () => {
    await client.query('DROP TABLE IF EXISTS prepared_names');
    await client.end();
  });

  it('the same INSERT text is prepared once and run with other values; the rows are those sent', async () => {
    await conn.query(insert, [1, 'a', 2, 'b'], true);
    await conn.query(insert, [3, 'c', 4, null], true);
    expect(await prepared()).toBe(1);
    await conn.query('INSERT INTO prepared_names (n) VALUES ($1::integer)', [5]);
    expect(await prepared()).toBe(1);
    expect((await client.query('SELECT n, t FROM prepared_names ORDER BY n')).rows).toEqual([
      { n: 1, t: 'a' },
      { n: 2, t: 'b' },
      { n: 3, t: 'c' },
      { n: 4, t: null },
      { n: 5, t: null },
    ]);
  });

  it('a server that lost the statement (a pooler moved the session) gets it unnamed, once, and the connection stops naming', async () => {
    await client.query('DEALLOCATE ALL');
    await client.query('TRUNCATE prepared_names');
    await conn.query(insert, [6, 'f', 7, 'g'], true);
    await conn.query(insert, [8, 'h', 9, 'i'], true);
    expect(await prepared()).toBe(0);
    expect((await client.query('SELECT n FROM prepared_names ORDER BY n')).rows.map((r) => r.n)).toEqual([6, 7, 8, 9]);
  });
});
