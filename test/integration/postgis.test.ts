import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { mysqlLike, PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: MariaDB spatial values into PostGIS geometry columns land as those geometries, SRID
 * included (before: only a bytea column took them). Runs where the PostgreSQL server offers the
 * postgis extension, and is reported skipped elsewhere.
 */
async function postgisAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'")).rows.length > 0;
  } finally {
    await client.end();
  }
}
const POSTGIS = await postgisAvailable();

const COLS = ['p', 'pg', 'g'];

describe.skipIf(!POSTGIS)('MariaDB spatial columns into PostGIS geometry columns', () => {
  let maria: TestDb;
  let pgdb: TestDb;
  beforeAll(async () => {
    maria = await mysqlLike('mariadb');
    pgdb = await postgres();
    await pgdb.exec('CREATE EXTENSION IF NOT EXISTS postgis');
    await maria.exec('DROP TABLE IF EXISTS t_postgis');
    await maria.exec('CREATE TABLE t_postgis (id int PRIMARY KEY, p POINT, pg POLYGON, g GEOMETRY)');
    await maria.exec(`INSERT INTO t_postgis VALUES
      (1, ST_GeomFromText('POINT(1.5 2.25)', 4326), ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,3 2,3 3,2 2))', 3857),
          ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1 1))', 4326)),
      (2, ST_GeomFromText('POINT(-73.5 40.25)'), ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))', 4326), ST_GeomFromText('LINESTRING(-3 4,5 -6)', 2154)),
      (3, NULL, NULL, ST_GeomFromText('MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))', 3857))`);
    await pgdb.exec('DROP TABLE IF EXISTS t_postgis');
    await pgdb.exec('CREATE TABLE t_postgis (id int PRIMARY KEY, p geometry, pg public.geometry, g geometry)');
  });
  afterAll(async () => {
    await maria?.close();
    await pgdb?.close();
  });

  it('every value lands as the same geometry with its SRID (ST_AsEWKT = SRID + ST_AsText), and the same WKB bytes', async () => {
    const r = await bridge(['copy', maria.url('t_postgis'), pgdb.url('t_postgis', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const want = (await maria.rows(`SELECT id, ${COLS.map((c) => `ST_AsText(${c}) AS ${c}_text, ST_SRID(${c}) AS ${c}_srid, LOWER(HEX(ST_AsBinary(${c}))) AS ${c}_wkb`).join(', ')} FROM t_postgis ORDER BY id`)).map((row) =>
      Object.fromEntries([
        ['id', Number(row.id)],
        ...COLS.flatMap((c) => {
          const text = row[`${c}_text`] as string | null;
          const srid = Number(row[`${c}_srid`]);
          return [
            [c, text === null ? null : srid === 0 ? text : `SRID=${srid};${text}`],
            [`${c}_wkb`, row[`${c}_wkb`]],
          ];
        }),
      ]),
    );
    const got = await pgdb.rows(`SELECT id, ${COLS.map((c) => `ST_AsEWKT(${c}) AS ${c}, encode(ST_AsBinary(${c}, 'NDR'), 'hex') AS ${c}_wkb`).join(', ')} FROM t_postgis ORDER BY id`);
    expect(got).toEqual(want);
    // Written out once, so a shared mistake in both sides' spelling cannot pass.
    expect(got[0]!.p).toBe('SRID=4326;POINT(1.5 2.25)');
    expect(got[1]!.p).toBe('POINT(-73.5 40.25)');
  });

  it('--dry-run plans the spatial columns as exact (no LOSSY)', async () => {
    const r = await bridge(['copy', maria.url('t_postgis'), pgdb.url('t_postgis', 'columns=auto'), '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/LOSSY/);
  });
});

describe.skipIf(!POSTGIS)('PostGIS refuses a value as an internal error (XX000)', () => {
  it('WKT that does not parse, among good values: that row is dead-lettered naming the field, the others land (it was exit 1)', async () => {
    const db = await postgres();
    try {
      await db.exec('CREATE EXTENSION IF NOT EXISTS postgis; DROP TABLE IF EXISTS t_bad_geom; CREATE TABLE t_bad_geom (id int PRIMARY KEY, g geometry)');
      const dir = tempDir();
      const src = writeNdjson(dir, 'geom.ndjson', [
        { id: 1, g: 'POINT(1 2)' },
        { id: 2, g: 'POINT(1' },
        { id: 3, g: 'SRID=4326;POINT(3 4)' },
      ]);
      const dead = `${dir}/geom.dead.ndjson`;
      const r = await bridge(['copy', src, db.url('t_bad_geom', 'columns=auto'), '--dead-letter', `file://${dead}`, '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/field g: parse error - invalid geometry/);
      expect(await db.rows('SELECT id, ST_AsEWKT(g) AS g FROM t_bad_geom ORDER BY id')).toEqual([
        { id: 1, g: 'POINT(1 2)' },
        { id: 3, g: 'SRID=4326;POINT(3 4)' },
      ]);
      expect((await bridge(['copy', src, db.url('t_bad_geom', 'columns=auto&key=id'), '--progress', 'none'])).exitCode).toBe(4);
      await db.exec('DROP TABLE t_bad_geom');
    } finally {
      await db.close();
    }
  });
});
