import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 28, 1: every writer of a SQL sink commits the batch's position in the transaction that
 * writes its rows. Shown without timing luck: a trigger on the position table refuses the third
 * batch's position, so that transaction must roll back with its rows — the sink then holds the
 * first two batches and nothing of the third. With the trigger gone, a run that has lost the
 * source's own checkpoint still resumes from the sink's position: every row once.
 */
const dir = tempDir('eo-writers-');
const N = 1000;
type Kind = 'postgres' | 'mariadb' | 'sqlite';
let dbs: Record<Kind, TestDb>;
let src: TestDb;

beforeAll(async () => {
  dbs = { postgres: await postgres(), mariadb: await mysqlLike('mariadb'), sqlite: sqlite(path.join(dir, 'sink.db')) };
  src = sqlite(path.join(dir, 'src.db'));
  await src.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT, n INTEGER)');
  await src.exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${N}) INSERT INTO ev SELECT i, 'row ' || i, i * 7 FROM g`);
});
afterAll(async () => {
  for (const d of [...Object.values(dbs), src]) await d.close();
});

const POSITIONS: Record<Kind, string> = {
  postgres: 'CREATE TABLE IF NOT EXISTS bridge_positions (route VARCHAR(255) PRIMARY KEY, last_position TEXT NOT NULL, seq BIGINT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())',
  mariadb: 'CREATE TABLE IF NOT EXISTS bridge_positions (route VARCHAR(255) NOT NULL PRIMARY KEY, last_position LONGTEXT NOT NULL, seq BIGINT NOT NULL, updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))',
  sqlite: "CREATE TABLE IF NOT EXISTS bridge_positions (route TEXT PRIMARY KEY, last_position TEXT NOT NULL, seq INTEGER NOT NULL, updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))",
};
/** Refuses the position of the third batch (seq 3), whatever writes it. */
const REFUSE: Record<Kind, string[]> = {
  postgres: [
    "CREATE OR REPLACE FUNCTION eo_refuse() RETURNS trigger AS $$ BEGIN IF NEW.seq = 3 THEN RAISE EXCEPTION 'position refused (test)'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql",
    'DROP TRIGGER IF EXISTS eo_refuse ON bridge_positions',
    'CREATE TRIGGER eo_refuse BEFORE UPDATE ON bridge_positions FOR EACH ROW EXECUTE FUNCTION eo_refuse()',
  ],
  mariadb: ['DROP TRIGGER IF EXISTS eo_refuse', "CREATE TRIGGER eo_refuse BEFORE UPDATE ON bridge_positions FOR EACH ROW BEGIN IF NEW.seq = 3 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'position refused (test)'; END IF; END"],
  sqlite: ['DROP TRIGGER IF EXISTS eo_refuse', "CREATE TRIGGER eo_refuse BEFORE UPDATE ON bridge_positions WHEN NEW.seq = 3 BEGIN SELECT RAISE(ABORT, 'position refused (test)'); END"],
};
const ALLOW: Record<Kind, string> = { postgres: 'DROP TRIGGER IF EXISTS eo_refuse ON bridge_positions', mariadb: 'DROP TRIGGER IF EXISTS eo_refuse', sqlite: 'DROP TRIGGER IF EXISTS eo_refuse' };

interface Writer {
  name: string;
  /** The sink table's DDL (the table name is `t`). */
  ddl(kind: Kind, t: string): string;
  fields: string;
  /** Rows per batch: PostgreSQL loads batches of 200 and more through COPY. */
  batch: number;
  kinds: Kind[];
  /** The ids the sink holds. */
  ids(db: TestDb, t: string): Promise<number[]>;
}

const idsOf = async (db: TestDb, t: string) => (await db.rows(`SELECT id FROM ${t}`)).map((r) => Number(r.id));
const payloadIds = async (db: TestDb, t: string) =>
  (await db.rows(`SELECT payload FROM ${t}`)).map((r) => Number((JSON.parse(Buffer.isBuffer(r.payload) ? r.payload.toString('utf8') : String(r.payload)) as { id: number }).id));
const plain = (kind: Kind, t: string) => `CREATE TABLE ${t} (id bigint, v varchar(40), n bigint)`.replace('bigint, v', kind === 'sqlite' ? 'INTEGER, v' : 'bigint, v');
const keyed = (kind: Kind, t: string) => `CREATE TABLE ${t} (id ${kind === 'sqlite' ? 'INTEGER' : 'bigint'} PRIMARY KEY, v varchar(40), n bigint)`;

const WRITERS: Writer[] = [
  { name: 'default insert (payload)', ddl: (k, t) => `CREATE TABLE ${t} (id ${k === 'postgres' ? 'bigserial' : k === 'sqlite' ? 'INTEGER' : 'bigint AUTO_INCREMENT'} PRIMARY KEY, payload text NOT NULL)`, fields: '', batch: 100, kinds: ['postgres', 'mariadb', 'sqlite'], ids: payloadIds },
  { name: 'default insert through COPY', ddl: (_k, t) => `CREATE TABLE ${t} (id bigserial PRIMARY KEY, payload text NOT NULL)`, fields: '', batch: 250, kinds: ['postgres'], ids: payloadIds },
  { name: 'columns=auto', ddl: plain, fields: 'columns=auto', batch: 100, kinds: ['postgres', 'mariadb', 'sqlite'], ids: idsOf },
  { name: 'columns=auto through COPY / LOAD DATA', ddl: plain, fields: 'columns=auto', batch: 250, kinds: ['postgres', 'mariadb'], ids: idsOf },
  { name: 'columns=auto&key=id', ddl: keyed, fields: 'columns=auto&key=id', batch: 250, kinds: ['postgres', 'mariadb', 'sqlite'], ids: idsOf },
  { name: 'insert_query with tokens', ddl: plain, fields: `insert_query=${encodeURIComponent('INSERT INTO {t} (id, v, n) VALUES (${payload:id}, ${payload:v}, ${payload:n})')}`, batch: 100, kinds: ['postgres', 'mariadb', 'sqlite'], ids: idsOf },
  { name: 'bulk_copy', ddl: plain, fields: `bulk_copy=true&insert_query=${encodeURIComponent('INSERT INTO {t} (id, v, n) VALUES (${payload:id}, ${payload:v}, ${payload:n})')}`, batch: 250, kinds: ['postgres'], ids: idsOf },
];

for (const w of WRITERS)
  for (const kind of w.kinds)
    describe(`${kind} sink, ${w.name}`, () => {
      it('a refused position rolls back its batch with it; the next run resumes from the sink and every row lands once', async () => {
        const db = dbs[kind];
        const t = `eo_w_${w.name.replace(/\W+/g, '_').slice(0, 24)}_${kind}`.toLowerCase();
        await db.exec(`DROP TABLE IF EXISTS ${t}`);
        await db.exec(w.ddl(kind, t));
        await db.exec(POSITIONS[kind]);
        await db.exec(`DELETE FROM bridge_positions WHERE route LIKE '${t}@%'`);
        for (const sql of REFUSE[kind]) await db.exec(sql);
        const fields = w.fields.replace(encodeURIComponent('{t}'), t);
        const from = `sqlite://${dir}/src.db?table=ev&cursor_column=id&cursor_id=${t}`;
        const args = ['copy', from, db.url(t, fields), '--batch-size', String(w.batch), '--progress', 'none'];
        try {
          const refused = await bridge(args);
          expect(refused.exitCode, refused.stderr).not.toBe(0);
          expect(refused.stderr).toMatch(/position refused \(test\)/);
          // Two batches committed with their positions; the third rolled back with its own: the rows are those up to the kept position.
          const kept = await db.rows(`SELECT last_position, seq FROM bridge_positions WHERE route LIKE '${t}@%'`);
          expect(kept.map((r) => Number(r.seq))).toEqual([2]);
          const upTo = Number((JSON.parse(String(kept[0]!.last_position)) as { frontier: { value: string } }).frontier.value);
          expect(upTo).toBeGreaterThan(w.batch);
          expect((await w.ids(db, t)).sort((a, b) => a - b)).toEqual(Array.from({ length: upTo }, (_, i) => i + 1));
        } finally {
          await db.exec(ALLOW[kind]);
        }
        // The source's checkpoint is lost (deleted): the sink's position decides where the run goes on.
        await src.exec(`DELETE FROM bridge_cursors_ev WHERE cursor_id = '${t}'`);
        const again = await bridge(args);
        expect(again.exitCode, again.stderr).toBe(0);
        expect(again.stderr).toMatch(/delivery exactly once/);
        expect(again.stderr).not.toMatch(/without the route's position/);
        expect((await w.ids(db, t)).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
      }, 60_000);
    });

describe('a sink login that may not create tables', () => {
  it('is refused with exit 2 naming the position table and the fixes; position_table=none goes on at least once', async () => {
    const pg = dbs.postgres;
    await pg.exec('DROP TABLE IF EXISTS eo_ro_dst; CREATE TABLE eo_ro_dst (id bigint, v text, n bigint)');
    await pg.exec("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'eo_ro') THEN CREATE ROLE eo_ro LOGIN; END IF; END $$");
    await pg.exec('REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO eo_ro; GRANT SELECT, INSERT ON eo_ro_dst TO eo_ro');
    await pg.exec("CREATE SCHEMA IF NOT EXISTS eo_ro_s; DROP TABLE IF EXISTS eo_ro_s.bridge_positions");
    const sink = pg.url('eo_ro_s.x', '').replace('postgres://postgres@', 'postgres://eo_ro@').replace('table=eo_ro_s.x', 'table=eo_ro_dst&columns=auto&position_table=eo_ro_s.bridge_positions');
    const from = `sqlite://${dir}/src.db?table=ev&cursor_column=id&cursor_id=eo_ro`;
    const refused = await bridge(['copy', from, sink, '--progress', 'none']);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/cannot create the position table eo_ro_s\.bridge_positions in the sink .*Create it \(or grant CREATE\), name another with position_table=<schema\.table>, or set position_table=none for at-least-once delivery/);
    expect((await pg.rows('SELECT count(*) AS n FROM eo_ro_dst'))[0]!.n).toBe('0');
    const plain = await bridge(['copy', from, sink.replace('position_table=eo_ro_s.bridge_positions', 'position_table=none'), '--progress', 'none']);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/delivery at least once/);
    expect((await pg.rows('SELECT count(*) AS n FROM eo_ro_dst'))[0]!.n).toBe(String(N));
  }, 60_000);
});
