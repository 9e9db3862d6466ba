import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, ROOT, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { BINLOG_URL, binlogDb, type BinlogDb } from '../helpers/binlog.js';
import { PG_URL, mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { changeLog, killLoop, SECONDS, SOURCE_DDL, type Kind } from '../helpers/exactly-once.js';
import { record } from './report.js';

/**
 * Issue 28, the proof for change capture: PostgreSQL's slot and the binlog into a change log (a
 * sink table without a key: every insert and update as a row), SIGKILLed at random moments under
 * writers that insert and update (each row's versions 0..v must each arrive once), and a source
 * transaction longer than 100,000 changes killed between the parts it goes out in.
 * EO_SINK_EXTRA='&position_table=none' shows the tests fail without the sink's position.
 */
const dir = tempDir('exactly-once-');
let dbs: Record<Kind, TestDb>;
const sqliteFile = path.join(dir, 'eo.db');

beforeAll(async () => {
  dbs = { postgres: await postgres(), mariadb: await mysqlLike('mariadb'), sqlite: sqlite(sqliteFile) };
});
afterAll(async () => {
  for (const db of Object.values(dbs)) await db.close();
});

describe('exactly once: change capture into a change log, SIGKILL at random moments', () => {
  it('postgres change capture → postgres table without a key (a change log): every insert and update once', async () => {
    const pg = dbs.postgres;
    const t = 'eo_cdc_src';
    const slot = 'eo_cdc_slot';
    await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
    for (const sql of [`DROP TABLE IF EXISTS ${t}`, 'DROP TABLE IF EXISTS eo_cdc_log', 'DROP PUBLICATION IF EXISTS eo_cdc_pub', SOURCE_DDL.postgres(t)]) await pg.exec(sql);
    const args = ['tail', pg.url(t, `publication=eo_cdc_pub&create_publication=true&slot_name=${slot}&snapshot=never`), pg.url('eo_cdc_log', `auto_create_table=true${process.env.EO_SINK_EXTRA ?? ''}`), '--batch-size', '70', '-q'];
    // The slot exists before the writers start: every change they make is in it.
    const first = spawnBridge(args);
    await waitFor(async () => (await pg.rows(`SELECT 1 FROM pg_replication_slots WHERE slot_name = '${slot}'`)).length > 0, 30_000, 50);
    first.kill('SIGKILL');
    await first;
    const script = path.join(dir, 'cdc.pgbench');
    // Inserts, and updates that raise v by one: each row's versions are 0..v, each must arrive once. Some transactions hold several.
    writeFileSync(
      script,
      `\\set r random(1, 10)\nBEGIN;\nINSERT INTO ${t} (w) VALUES (:client_id);\nUPDATE ${t} SET v = v + 1 WHERE id = (SELECT max(id) - :r FROM ${t});\nSELECT pg_sleep(random() * 0.01);\nUPDATE ${t} SET v = v + 1 WHERE id = (SELECT max(id) - 2 * :r FROM ${t});\nCOMMIT;\n`,
    );
    const writing = execa('pgbench', ['-n', '-c', '4', '-j', '2', '--max-tries', '50', '-T', String(SECONDS), '-f', script, PG_URL]);
    const { kills, runs } = await killLoop(args, writing);
    const drain = await bridge(['copy', ...args.slice(1)]);
    expect(drain.exitCode, drain.stderr).toBe(0);
    const { lost, duplicates, changes, versions } = await changeLog(await pg.rows(`SELECT id, v FROM ${t}`), await pg.rows('SELECT payload FROM eo_cdc_log'));
    await pg.exec(`SELECT pg_drop_replication_slot('${slot}')`);
    record({ scenario: 'exactly once postgres change capture → postgres change log', runs: kills, lost, duplicates, outcome: lost === 0 && duplicates === 0 ? 'exactly once' : 'NOT EXACTLY ONCE' });
    console.log(`exactly once postgres change capture → change log: ${changes} changes, ${kills} kills in ${runs} runs, lost ${lost}, duplicates ${duplicates}`);
    expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
    expect(versions).toBe(changes);
  }, 300_000);

  it.skipIf(!BINLOG_URL)('mariadb binlog change capture → postgres table without a key (a change log): every insert and update once', async () => {
    const bl = (await binlogDb()) as BinlogDb;
    const pg = dbs.postgres;
    const t = 'eo_bl_src';
    try {
      for (const sql of [`DROP TABLE IF EXISTS ${t}`, `DROP TABLE IF EXISTS bridge_cursors_${t}`, SOURCE_DDL.mariadb(t)]) await bl.exec(sql);
      await pg.exec('DROP TABLE IF EXISTS eo_bl_log');
      const args = ['tail', bl.cdc(`tables=${t}&snapshot=never&slot_name=eo_bl`), pg.url('eo_bl_log', `auto_create_table=true${process.env.EO_SINK_EXTRA ?? ''}`), '--batch-size', '70', '-q'];
      // The first run keeps the binlog's end as its position: every change the writers make comes after it.
      const first = await bridge(['copy', ...args.slice(1)]);
      expect(first.exitCode, first.stderr).toBe(0);
      await bl.exec(`INSERT INTO ${t} (w) VALUES (0)`);
      const writing = execa('node', [path.join(ROOT, 'test/helpers/race-writer.mjs'), 'mariadb', BINLOG_URL!.replace(/^mariadb:/, 'mysql:'), t, '4', String(SECONDS), 'updates']);
      const { kills, runs } = await killLoop(args, writing);
      const drain = await bridge(['copy', ...args.slice(1)]);
      expect(drain.exitCode, drain.stderr).toBe(0);
      const { lost, duplicates, changes, versions } = await changeLog(await bl.rows(`SELECT id, v FROM ${t}`), await pg.rows('SELECT payload FROM eo_bl_log'));
      record({ scenario: 'exactly once mariadb binlog → postgres change log', runs: kills, lost, duplicates, outcome: lost === 0 && duplicates === 0 ? 'exactly once' : 'NOT EXACTLY ONCE' });
      console.log(`exactly once mariadb binlog → change log: ${changes} changes, ${kills} kills in ${runs} runs, lost ${lost}, duplicates ${duplicates}`);
      expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
      expect(versions).toBe(changes);
    } finally {
      await bl.close();
    }
  }, 300_000);

  /**
   * A source transaction longer than 100,000 changes goes out in parts before its commit: a kill
   * between two parts must resume inside it, neither repeating the parts the sink holds nor
   * skipping the rest. One 120,000-row UPDATE; killed once the log holds its first part.
   */
  for (const kind of ['postgres', 'mariadb'] as const)
    it.skipIf(kind === 'mariadb' && !BINLOG_URL)(`${kind} change capture, one 120,000-change transaction killed between its parts: each change once`, async () => {
      const pg = dbs.postgres;
      const bl = kind === 'mariadb' ? ((await binlogDb()) as BinlogDb) : undefined;
      const src = bl ?? pg;
      const t = `eo_big_${kind}`;
      const log = `eo_big_log_${kind}`;
      const slot = `eo_big_${kind}`;
      try {
        if (!bl) await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
        for (const sql of [`DROP TABLE IF EXISTS ${t}`, `DROP TABLE IF EXISTS bridge_cursors_${t}`, SOURCE_DDL[kind](t)]) await src.exec(sql);
        if (!bl) await pg.exec(`DROP PUBLICATION IF EXISTS ${slot}`);
        await src.exec(bl ? `INSERT INTO ${t} (w) SELECT seq FROM seq_1_to_120000` : `INSERT INTO ${t} (w) SELECT g FROM generate_series(1, 120000) g`);
        await pg.exec(`DROP TABLE IF EXISTS ${log}`);
        const from = bl ? bl.cdc(`tables=${t}&snapshot=never&slot_name=${slot}`) : pg.url(t, `publication=${slot}&create_publication=true&slot_name=${slot}&snapshot=never`);
        const args = ['tail', from, pg.url(log, `auto_create_table=true${process.env.EO_SINK_EXTRA ?? ''}`), '-q'];
        const first = await bridge(['copy', ...args.slice(1)]);
        expect(first.exitCode, first.stderr).toBe(0);
        await src.exec(`UPDATE ${t} SET v = v + 1`);
        const count = async () => Number((await pg.rows(`SELECT count(*) AS n FROM ${log}`).catch(() => [{ n: 0 }]))[0]!.n);
        const p = spawnBridge(args);
        await waitFor(async () => (await count()) >= 40_000, 120_000, 20);
        p.kill('SIGKILL');
        await p;
        const atKill = await count();
        const drain = await bridge(['copy', ...args.slice(1)]);
        expect(drain.exitCode, drain.stderr).toBe(0);
        const { lost, duplicates, changes, versions } = await changeLog(
          (await src.rows(`SELECT id, v FROM ${t}`)).map((r) => ({ ...r })),
          (await pg.rows(`SELECT payload FROM ${log}`)).map((r) => ({ payload: r.payload })),
          1,
        );
        console.log(`exactly once ${kind} change capture, 120,000-change transaction: killed with ${atKill} in the log; ${versions} of ${changes}, lost ${lost}, duplicates ${duplicates}`);
        record({ scenario: `exactly once ${kind} change capture, a transaction in parts`, runs: 1, lost, duplicates, outcome: lost === 0 && duplicates === 0 ? `exactly once (killed at ${atKill} of 120,000)` : 'NOT EXACTLY ONCE' });
        expect(atKill).toBeLessThan(120_000);
        expect({ lost, duplicates }).toEqual({ lost: 0, duplicates: 0 });
      } finally {
        if (!bl) await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${slot}'`);
        await bl?.close();
      }
    }, 300_000);
});
