import { afterAll, beforeAll, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Reported (issue 26): a mirror showed part of a large source transaction while it streamed
 * (43,008 of 200,000 rows visible at a kill). Each source transaction is now applied as one sink
 * transaction (up to 100,000 changes): the mirror never shows a state the source never had. A
 * trigger on the mirror records the sink transaction of every change it receives.
 */
let pg: TestDb;
const slot = 'cdc_tx_slot';
beforeAll(async () => {
  pg = await postgres();
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
  await pg.exec(`DROP PUBLICATION IF EXISTS cdc_tx_pub; DROP TABLE IF EXISTS cdc_tx_src, cdc_tx_mirror, cdc_tx_log;
    CREATE TABLE cdc_tx_src (id int PRIMARY KEY, v text NOT NULL);
    CREATE TABLE cdc_tx_mirror (id int PRIMARY KEY, v text NOT NULL);
    CREATE TABLE cdc_tx_log (xid xid8, op text, v text);
    CREATE OR REPLACE FUNCTION cdc_tx_logged() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO cdc_tx_log VALUES (pg_current_xact_id(), TG_OP, CASE WHEN TG_OP = 'DELETE' THEN OLD.v ELSE NEW.v END); RETURN NULL; END $$;
    CREATE TRIGGER cdc_tx_logged AFTER INSERT OR UPDATE OR DELETE ON cdc_tx_mirror FOR EACH ROW EXECUTE FUNCTION cdc_tx_logged()`);
});
afterAll(async () => {
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}' AND NOT active`);
  await pg.close();
});

it('a 3,000-row source transaction and a 2,000-change one (updates and deletes), batch size 100: each lands in one sink transaction', async () => {
  const src = `${PG_URL}?table=cdc_tx_src&publication=cdc_tx_pub&create_publication=true&slot_name=${slot}`;
  const dst = pg.url('cdc_tx_mirror', 'columns=auto&key=id');
  // Creates the publication and the slot (nothing to stream yet).
  expect((await bridge(['copy', src, dst, '--progress', 'none'])).exitCode).toBe(0);
  await pg.exec("INSERT INTO cdc_tx_src SELECT g, 'first' FROM generate_series(1, 3000) g");
  await pg.exec("BEGIN; UPDATE cdc_tx_src SET v = 'second' WHERE id <= 1500; DELETE FROM cdc_tx_src WHERE id > 2500; COMMIT");
  const r = await bridge(['copy', src, dst, '--batch-size', '100', '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(await pg.rows('SELECT count(*)::int AS n, count(*) FILTER (WHERE v = $$second$$)::int AS second FROM cdc_tx_mirror')).toEqual([{ n: 2500, second: 1500 }]);
  const byPhase = await pg.rows(`SELECT CASE WHEN op = 'INSERT' AND v = 'first' THEN 'first' ELSE 'second' END AS phase, count(*)::int AS changes, count(DISTINCT xid)::int AS sink_transactions
    FROM cdc_tx_log GROUP BY 1 ORDER BY 1`);
  expect(byPhase).toEqual([
    { phase: 'first', changes: 3000, sink_transactions: 1 },
    { phase: 'second', changes: 2000, sink_transactions: 1 },
  ]);
});
