import { describe, expect, it } from 'vitest';
import { MysqlDialect } from '../../src/connectors/mysql/dialect.js';
import { PostgresDialect } from '../../src/connectors/postgres/dialect.js';
import { mysqlGeometryToEwkbHex } from '../../src/connectors/postgres/ewkb.js';
import { assess } from '../../src/connectors/sql/values/assess.js';
import { Reject, type SourceColumn } from '../../src/connectors/sql/values/bind.js';
import { ColumnRows } from '../../src/connectors/sql/write/column-rows.js';
import { RowShape } from '../../src/connectors/sql/values/row-fields.js';
import { withUniques, type ColumnInfo } from '../../src/connectors/sql/types.js';

/**
 * Issue 26: MySQL/MariaDB spatial values (a 4-byte little-endian SRID, then WKB) into a PostGIS
 * geometry/geography column land as that geometry, SRID included, as hex EWKB. The expected
 * bytes below are written out by hand from the EWKB layout (byte order, type word with the SRID
 * flag 0x20000000, SRID, then the rest of the WKB), not computed by the code under test.
 */
const bytes = (...parts: string[]): Buffer => Buffer.from(parts.join(''), 'hex');
const hex = (...parts: string[]): string => parts.join('').toLowerCase();

// IEEE 754 doubles: 1.5 = 0x3FF8000000000000, 2.25 = 0x4002000000000000, 1 = 0x3FF0…, 2 = 0x4000…, 0 = 0.
const X_BE = '3FF8000000000000';
const X_LE = '000000000000F83F';
const Y_BE = '4002000000000000';
const Y_LE = '0000000000000240';
const ONE_LE = '000000000000F03F';
const TWO_LE = '0000000000000040';
const ZERO = '0000000000000000';
// SRID 4326 = 0x10E6, 3857 = 0x0F11.
const SRID_4326_LE = 'E6100000';
const SRID_4326_BE = '000010E6';
const SRID_3857_LE = '110F0000';

/** POINT(1.5 2.25), SRID 4326, as MariaDB stores it (SRID always little-endian; here a little-endian WKB). */
const POINT_4326 = bytes(SRID_4326_LE, '01', '01000000', X_LE, Y_LE);

describe('mysqlGeometryToEwkbHex', () => {
  it('the doubles written by hand are 1.5, 2.25, 1, 2', () => {
    expect([bytes(X_LE).readDoubleLE(0), bytes(X_BE).readDoubleBE(0), bytes(Y_LE).readDoubleLE(0), bytes(Y_BE).readDoubleBE(0)]).toEqual([1.5, 1.5, 2.25, 2.25]);
    expect([bytes(ONE_LE).readDoubleLE(0), bytes(TWO_LE).readDoubleLE(0)]).toEqual([1, 2]);
  });

  it('POINT SRID 4326, little-endian WKB: SRID flag on the type word, SRID after it, little-endian', () => {
    expect(mysqlGeometryToEwkbHex(POINT_4326)).toBe(hex('01', '01000020', SRID_4326_LE, X_LE, Y_LE));
  });

  it('POINT SRID 4326, big-endian WKB: flag and SRID in the WKB\'s big-endian order (MySQL\'s SRID prefix stays little-endian)', () => {
    const mysql = bytes(SRID_4326_LE, '00', '00000001', X_BE, Y_BE);
    expect(mysqlGeometryToEwkbHex(mysql)).toBe(hex('00', '20000001', SRID_4326_BE, X_BE, Y_BE));
  });

  it('SRID 0: the plain WKB, no flag and no SRID', () => {
    expect(mysqlGeometryToEwkbHex(bytes('00000000', '01', '01000000', X_LE, Y_LE))).toBe(hex('01', '01000000', X_LE, Y_LE));
  });

  it('GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,1 1)) SRID 3857: only the outer type word gets the flag and the SRID', () => {
    const point = ['01', '01000000', ONE_LE, TWO_LE];
    const line = ['01', '02000000', '02000000', ZERO, ZERO, ONE_LE, ONE_LE];
    const mysql = bytes(SRID_3857_LE, '01', '07000000', '02000000', ...point, ...line);
    expect(mysqlGeometryToEwkbHex(mysql)).toBe(hex('01', '07000020', SRID_3857_LE, '02000000', ...point, ...line));
  });

  it('reads only its own bytes of a larger buffer (a view with an offset)', () => {
    const big = Buffer.concat([bytes('FFFFFFFF'), POINT_4326, bytes('FFFF')]);
    expect(mysqlGeometryToEwkbHex(big.subarray(4, 4 + POINT_4326.length))).toBe(hex('01', '01000020', SRID_4326_LE, X_LE, Y_LE));
  });

  it('too short (fewer than 9 bytes: SRID, byte order, type word) is rejected, saying its length', () => {
    expect(() => mysqlGeometryToEwkbHex(bytes(SRID_4326_LE, '01', '010000'))).toThrow(Reject);
    expect(() => mysqlGeometryToEwkbHex(bytes(SRID_4326_LE, '01', '010000'))).toThrow(/is 8 bytes, not a MySQL geometry/);
    expect(() => mysqlGeometryToEwkbHex(Buffer.alloc(0))).toThrow(/is 0 bytes/);
  });

  it('a byte-order byte other than 0 or 1 is rejected', () => {
    expect(() => mysqlGeometryToEwkbHex(bytes(SRID_4326_LE, '02', '01000000', X_LE, Y_LE))).toThrow(/byte order of its WKB is 2/);
  });

  it('a type word already flagged with an SRID, and an SRID PostGIS would change (over 999999), are rejected', () => {
    expect(() => mysqlGeometryToEwkbHex(bytes(SRID_4326_LE, '01', '01000020', SRID_4326_LE, X_LE, Y_LE))).toThrow(/already carries an SRID/);
    expect(() => mysqlGeometryToEwkbHex(bytes('40420F00', '01', '01000000', X_LE, Y_LE))).toThrow(/SRID 1000000; PostGIS keeps SRIDs up to 999999/);
  });
});

const pg = new PostgresDialect();
const mysql = new MysqlDialect('mariadb');
const source = (col: ColumnInfo, d: PostgresDialect | MysqlDialect): SourceColumn => ({ col, type: col.type, loose: false, kind: d.kind, binder: d.binder });

/** The values one source row becomes in target column `g` (columns=auto's path), or the rejection it raises. */
function land(target: ColumnInfo, src: SourceColumn, value: unknown): unknown {
  const rows = new ColumnRows(pg.binder, { table: 't', info: withUniques({ exists: true, columns: [target], primaryKey: [], uniqueSets: [] }), extraColumn: undefined, key: undefined, onDropped: () => {} });
  const shape = new RowShape([{ name: 'g', type: src.type }], { timestamps: 'text' }, false, () => '', [src]);
  return rows.rowOf(shape, [value]).values[0];
}

describe('PostGIS target columns', () => {
  it('geometry and geography are known by name, schema-qualified or not, with or without a typmod', () => {
    for (const t of ['geometry', 'geography', 'public.geometry', 'geometry(Point,4326)', 'extensions.geography(Polygon,4326)', '"my schema".geometry'])
      expect(pg.describeType('g', t).variant, t).toBe('spatial');
    for (const t of ['bytea', 'text', 'geometry_dump', 'box2d', 'geometry[]']) expect(pg.describeType('g', t).variant, t).not.toBe('spatial');
  });

  it('a MariaDB POINT value lands as hex EWKB; a malformed one is rejected naming the field', () => {
    const target = pg.describeType('g', 'geometry');
    const src = source(mysql.describeType('g', 'POINT'), mysql);
    expect(land(target, src, POINT_4326)).toBe(hex('01', '01000020', SRID_4326_LE, X_LE, Y_LE));
    expect(land(target, src, null)).toBe(null);
    expect(() => land(target, src, bytes(SRID_4326_LE, '01', '010000'))).toThrow(/field g is 8 bytes, not a MySQL geometry/);
  });

  it('bytes of a column that is not spatial (bytea) are rejected: plain WKB cannot be told from MySQL\'s bytes', () => {
    const src = source(pg.describeType('g', 'bytea'), pg);
    expect(() => land(pg.describeType('g', 'geometry'), src, POINT_4326)).toThrow(/field g is bytes of bytea that is not MySQL\/MariaDB spatial/);
  });

  it('text (WKT, hex EWKB of another PostGIS column) goes as it is, for the server to read', () => {
    const src = source(pg.describeType('g', 'geometry(Point,4326)'), pg);
    expect(land(pg.describeType('g', 'geometry'), src, '0101000020E6100000000000000000F83F0000000000000240')).toBe('0101000020E6100000000000000000F83F0000000000000240');
  });

  it('dry run: MariaDB spatial into geometry is exact (no LOSSY); typmods and geography say what the server changes or refuses', () => {
    const s = { col: mysql.describeType('g', 'POINT'), binder: mysql.binder };
    const into = (t: string) => assess(s, { col: pg.describeType('g', t), binder: pg.binder });
    expect(into('geometry')).toEqual({ lossy: [], rejects: ['SRIDs above 999999, which PostGIS would change'] });
    expect(into('geometry(Point,4326)')).toEqual({
      lossy: ['geometries without an SRID (0) land with SRID 4326'],
      rejects: ['geometries of another type than geometry(Point,4326) declares', 'SRIDs other than 0 and 4326', 'SRIDs above 999999, which PostGIS would change'],
    });
    expect(into('geometry(PointZ)').rejects[0]).toMatch(/^every value: MySQL\/MariaDB geometries are 2D/);
    expect(into('geography').lossy).toEqual(['geometries without an SRID (0) land with SRID 4326', 'coordinates beyond ±180/±90 are moved into that range']);
    expect(into('geography').rejects).toContain('SRIDs that are not longitude/latitude systems');
    // Into bytea, as before: the same bytes.
    expect(into('bytea')).toEqual({ lossy: [], rejects: [] });
    expect(assess({ col: mysql.describeType('g', 'BLOB'), binder: mysql.binder }, { col: pg.describeType('g', 'geometry'), binder: pg.binder }).rejects).toEqual(['bytes that are not from a MySQL/MariaDB spatial column']);
  });
});
