import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: MariaDB/MySQL spatial columns became the text "[object Object]" in every sink (exit 0,
 * dry run silent) and failed with exit 1 into an identical MariaDB table. Rule (docs/types.md): a
 * spatial value travels as MySQL's own geometry bytes (4-byte little-endian SRID, then WKB),
 * exactly: into the same type on MySQL/MariaDB, bytea on PostgreSQL, BLOB on SQLite, base64 in NDJSON.
 */
const dir = tempDir();
let maria: TestDb;
let pg: TestDb;
const COLS = ['g', 'p', 'ls', 'pg', 'mp', 'gc'];
beforeAll(async () => {
  maria = await mysqlLike('mariadb');
  pg = await postgres();
  await maria.exec('DROP TABLE IF EXISTS t_spatial');
  await maria.exec(`CREATE TABLE t_spatial (id int PRIMARY KEY, g GEOMETRY, p POINT, ls LINESTRING, pg POLYGON, mp MULTIPOLYGON, gc GEOMETRYCOLLECTION)`);
  await maria.exec(`INSERT INTO t_spatial VALUES
    (1, ST_GeomFromText('POINT(1.5 2.25)', 4326), POINT(0.1, 0.30000000000000004), ST_GeomFromText('LINESTRING(0 0, 1e-300 1e300, -3 4)'),
        ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,3 2,3 3,2 2))', 3857), ST_GeomFromText('MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))'),
        ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1 1))')),
    (2, NULL, NULL, NULL, NULL, NULL, NULL),
    (3, ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))'), POINT(-180, 90), NULL, NULL, NULL, NULL)`);
});
afterAll(async () => {
  await maria.close();
  await pg.close();
});

/** Each spatial value as hex of MySQL's bytes, by id. */
async function sourceHex(): Promise<Record<string, unknown>[]> {
  return maria.rows(`SELECT id, ${COLS.map((c) => `HEX(CAST(${c} AS BINARY)) AS ${c}`).join(', ')} FROM t_spatial ORDER BY id`);
}

describe('MariaDB spatial columns', () => {
  it('into an identical MariaDB table: every value lands exactly (same type, SRID and coordinates)', async () => {
    await maria.exec('DROP TABLE IF EXISTS t_spatial_same');
    await maria.exec('CREATE TABLE t_spatial_same LIKE t_spatial');
    const r = await bridge(['copy', maria.url('t_spatial'), maria.url('t_spatial_same', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await maria.rows(`SELECT id, ${COLS.map((c) => `HEX(CAST(${c} AS BINARY)) AS ${c}`).join(', ')} FROM t_spatial_same ORDER BY id`)).toEqual(await sourceHex());
  });

  it('into a MariaDB table bridge creates: the same spatial types, every value exact', async () => {
    await maria.exec('DROP TABLE IF EXISTS t_spatial_made');
    const r = await bridge(['copy', maria.url('t_spatial'), maria.url('t_spatial_made', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const types = await maria.rows("SELECT COLUMN_NAME AS c, DATA_TYPE AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't_spatial_made' ORDER BY ORDINAL_POSITION");
    expect(types.map((x) => x.t)).toEqual(['int', 'geometry', 'point', 'linestring', 'polygon', 'multipolygon', 'geometrycollection']);
    expect(await maria.rows(`SELECT id, ${COLS.map((c) => `HEX(CAST(${c} AS BINARY)) AS ${c}`).join(', ')} FROM t_spatial_made ORDER BY id`)).toEqual(await sourceHex());
  });

  it('into PostgreSQL (created): bytea holding the same bytes', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_spatial_pg');
    const r = await bridge(['copy', maria.url('t_spatial'), pg.url('t_spatial_pg', 'columns=auto&auto_create_table=true'), '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const got = await pg.rows(`SELECT id, ${COLS.map((c) => `upper(encode(${c}, 'hex')) AS ${c}`).join(', ')} FROM t_spatial_pg ORDER BY id`);
    const want = (await sourceHex()).map((row) => ({ ...row, id: Number(row.id) }));
    expect(got).toEqual(want);
  });

  it('into SQLite (created): BLOBs holding the same bytes', async () => {
    const file = path.join(dir, 'spatial.db');
    const r = await bridge(['copy', maria.url('t_spatial'), `sqlite://${file}?table=t_spatial&columns=auto&auto_create_table=true`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const db = new Database(file);
    const got = db.prepare(`SELECT id, ${COLS.map((c) => `hex(${c}) AS ${c}, typeof(${c}) AS ${c}_class`).join(', ')} FROM t_spatial ORDER BY id`).all() as Record<string, unknown>[];
    db.close();
    const want = await sourceHex();
    for (const [i, row] of got.entries()) for (const c of COLS) {
      expect(row[c] === '' ? null : row[c]).toEqual(want[i]![c]);
      expect(row[`${c}_class`]).toBe(want[i]![c] === null ? 'null' : 'blob');
    }
  });

  it('into NDJSON and stdout: base64 of the same bytes, never [object Object]', async () => {
    const out = path.join(dir, 'spatial.ndjson');
    const r = await bridge(['copy', maria.url('t_spatial'), `file://${out}`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('[object Object]');
    const rows = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string | null>);
    const want = await sourceHex();
    for (const [i, row] of rows.entries()) for (const c of COLS) expect(row[c] === null ? null : Buffer.from(row[c]!, 'base64').toString('hex').toUpperCase()).toEqual(want[i]![c]);
    const std = await bridge(['copy', maria.url('t_spatial'), 'stdout://', '--progress', 'none']);
    expect(std.stdout).not.toContain('[object Object]');
  });

  it('--dry-run plans spatial columns as exact bytes, not as lossy', async () => {
    const r = await bridge(['copy', maria.url('t_spatial'), pg.url('t_spatial_pg', 'columns=auto'), '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/LOSSY/);
  });
});
