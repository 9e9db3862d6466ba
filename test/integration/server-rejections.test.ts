import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: a value PostgreSQL itself refuses (a date that does not exist, a zero date, text that
 * is no inet) was reported without its column ("date/time field value out of range: …"). The
 * server says only which parameter or COPY column it was; bridge names the field.
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;
beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS t_server_rejects');
  await pg.exec('CREATE TABLE t_server_rejects (id int PRIMARY KEY, d date, n inet)');
  await maria.exec('DROP TABLE IF EXISTS t_zero_dates');
  await maria.exec('CREATE TABLE t_zero_dates (id int PRIMARY KEY, d date)');
  await maria.exec("SET SESSION sql_mode = ''");
  await maria.exec("INSERT INTO t_zero_dates VALUES (1, '2024-01-01'), (2, '0000-00-00')");
});
afterAll(async () => {
  await pg.close();
  await maria.close();
});

describe('rejections raised by PostgreSQL itself name the field', () => {
  for (const [what, rows, field] of [
    ['a date that does not exist', [{ id: 1, d: '2024-02-30', n: null }], 'd'],
    ['text that is no inet', [{ id: 2, d: '2024-02-28', n: 'not-an-address' }], 'n'],
  ] as const)
    for (const extra of ['', '&key=id'])
      it(`${what}${extra ? ' (key= upsert)' : ''}: exit 4, the error names field ${field}`, async () => {
        const src = writeNdjson(dir, `r${field}${extra ? 'k' : ''}.ndjson`, [...rows]);
        const r = await bridge(['copy', src, pg.url('t_server_rejects', `columns=auto${extra}`), '--progress', 'none']);
        expect(r.exitCode).toBe(4);
        expect(r.stderr).toMatch(new RegExp(`rejected.*: field ${field}: `));
      });

  it('a MariaDB zero date into PostgreSQL: exit 4 naming the field', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_zero_dates');
    await pg.exec('CREATE TABLE t_zero_dates (id int PRIMARY KEY, d date)');
    const r = await bridge(['copy', maria.url('t_zero_dates'), pg.url('t_zero_dates', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/field d/);
  });

  it('a JSON document nested 100,000 deep into jsonb (stack depth limit exceeded): that row is dead-lettered, the others land, not exit 1', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_deep_json; CREATE TABLE t_deep_json (id int PRIMARY KEY, j jsonb)');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const file = `${dir}/deep.ndjson`;
    (await import('node:fs')).writeFileSync(file, `{"id":1,"j":{"a":1}}\n{"id":2,"j":${deep}}\n{"id":3,"j":[1]}\n`);
    const dead = `${dir}/deep.dead.ndjson`;
    for (const extra of ['', '&key=id']) {
      await pg.exec('DELETE FROM t_deep_json');
      const r = await bridge(['copy', `file://${file}`, pg.url('t_deep_json', `columns=auto${extra}`), '--dead-letter', `file://${dead}`, '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/done: 2 rows .* 1 dead-lettered/);
      expect((await pg.rows('SELECT id FROM t_deep_json ORDER BY id')).map((x) => x.id)).toEqual([1, 3]);
    }
    const plain = await bridge(['copy', `file://${file}`, pg.url('t_deep_json', 'columns=auto&key=id'), '--progress', 'none']);
    expect(plain.exitCode).toBe(4);
    await pg.exec('DROP TABLE t_deep_json');
  });

  it("a row the table's own trigger refuses (PostgreSQL RAISE EXCEPTION, MariaDB SIGNAL '45000'): dead-lettered with the trigger's words, the others land, not exit 1", async () => {
    await pg.exec(`DROP TABLE IF EXISTS t_trigger; CREATE TABLE t_trigger (id int PRIMARY KEY, qty int);
      CREATE OR REPLACE FUNCTION t_trigger_check() RETURNS trigger AS $$ BEGIN IF NEW.qty < 0 THEN RAISE EXCEPTION 'qty must not be negative (got %)', NEW.qty; END IF; RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER t_trigger_check BEFORE INSERT OR UPDATE ON t_trigger FOR EACH ROW EXECUTE FUNCTION t_trigger_check()`);
    await maria.exec('DROP TABLE IF EXISTS t_trigger; CREATE TABLE t_trigger (id int PRIMARY KEY, qty int)');
    await maria.exec("CREATE TRIGGER t_trigger_check BEFORE INSERT ON t_trigger FOR EACH ROW BEGIN IF NEW.qty < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'qty must not be negative'; END IF; END");
    const src = writeNdjson(dir, 'trigger.ndjson', [{ id: 1, qty: 5 }, { id: 2, qty: -1 }, { id: 3, qty: 7 }]);
    for (const db of [pg, maria])
      for (const extra of ['', '&key=id']) {
        await db.exec('DELETE FROM t_trigger');
        const dead = `${dir}/trigger-${db.kind}${extra ? '-key' : ''}.dead.ndjson`;
        const r = await bridge(['copy', src, db.url('t_trigger', `columns=auto${extra}`), '--dead-letter', `file://${dead}`, '--progress', 'none']);
        expect(r.exitCode, `${db.kind}${extra}: ${r.stderr}`).toBe(0);
        expect(r.stderr).toMatch(/qty must not be negative/);
        expect((await db.rows('SELECT id FROM t_trigger ORDER BY id')).map((x) => Number(x.id))).toEqual([1, 3]);
        expect((await bridge(['copy', src, db.url('t_trigger', `columns=auto${extra}`), '--progress', 'none'])).exitCode).toBe(4);
      }
    await pg.exec('DROP TABLE t_trigger; DROP FUNCTION t_trigger_check()');
    await maria.exec('DROP TABLE t_trigger');
  });
});
