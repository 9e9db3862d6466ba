import { stringValue } from '../../core/json-fields.js';
import { BASE64, familyOf, reject, type Converter, type SourceColumn } from '../sql/values/bind-rules.js';
import type { ColumnInfo } from '../sql/types.js';
import { mysqlGeometryToEwkbHex, POSTGIS_MAX_SRID } from './ewkb.js';

/** `geometry` or `geography` for a PostGIS type name (see isPostgisType); undefined for any other. */
const postgisName = (name: string): string | undefined => /(?:^|\.)"?(geometry|geography)"?$/i.exec(name.replace(/\(.*\)\s*$/, '').trim())?.[1]?.toLowerCase();

/**
 * Whether a type name is PostGIS's geometry or geography, schema-qualified or not, with or
 * without a typmod (`geometry`, `public.geometry(Point,4326)`). An extension's types have no
 * fixed OID: the name is all there is to go by.
 */
export const isPostgisType = (name: string): boolean => postgisName(name) !== undefined;

/** A typmod as format_type() writes it: the geometry type with its Z/M suffix, and the SRID (`(PointZ,4326)`). */
const TYPMOD = /\(\s*([a-z]+?)(zm|z|m)?\s*(?:,\s*(\d+)\s*)?\)\s*$/i;

/**
 * For the dry run: what lands in PostGIS column `col` of the bytes of source column `src`. Bytes of
 * a column that is not spatial are refused (see postgisConverter). Of MySQL/MariaDB geometries (2D,
 * any type, any SRID), a plain `geometry` keeps each exactly; a typmod refuses other types, other
 * SRIDs and every 2D value of a Z/M column, and gives SRID 0 its own SRID; geography gives SRID 0
 * the SRID 4326, refuses SRIDs that are not longitude/latitude, and moves coordinates beyond
 * ±180/±90 into that range (with only a NOTICE).
 */
export function postgisVerdict(col: ColumnInfo, src: ColumnInfo): { lossy: string[]; rejects: string[] } {
  const lossy: string[] = [];
  const rejects: string[] = [];
  if (src.variant !== 'spatial') return { lossy, rejects: ['bytes that are not from a MySQL/MariaDB spatial column'] };
  const geography = postgisName(col.dbType) === 'geography';
  const m = TYPMOD.exec(col.dbType);
  const srid = m?.[3] === undefined ? 0 : Number(m[3]);
  if (m?.[2]) rejects.push(`every value: MySQL/MariaDB geometries are 2D, ${col.dbType} takes ${m[2].toUpperCase()} coordinates`);
  else if (m && m[1]!.toLowerCase() !== 'geometry') rejects.push(`geometries of another type than ${col.dbType} declares`);
  const given = srid || (geography ? 4326 : 0);
  if (given) lossy.push(`geometries without an SRID (0) land with SRID ${given}`);
  if (srid) rejects.push(`SRIDs other than 0 and ${srid}`);
  if (geography) {
    rejects.push('SRIDs that are not longitude/latitude systems');
    lossy.push('coordinates beyond ±180/±90 are moved into that range');
  }
  rejects.push(`SRIDs above ${POSTGIS_MAX_SRID}, which PostGIS would change`);
  return { lossy, rejects };
}

/**
 * The converter of a PostGIS column: bytes of a MySQL/MariaDB spatial column become hex EWKB (the
 * same geometry, SRID included), which the server reads as the column's type. Bytes of any other
 * column are refused: plain WKB and MySQL's bytes cannot be told apart, and reading one as the
 * other could give a wrong geometry without an error. Text (WKT, another PostGIS column's hex
 * EWKB) goes on to `conv`, and the server reads it.
 */
export function postgisConverter(conv: Converter, col: ColumnInfo, src: SourceColumn | undefined): Converter {
  const mysqlGeometry = src !== undefined && src.col.variant === 'spatial' && src.type === 'bytes';
  return (f, native) => {
    if (f.kind !== 'string' || familyOf(native, src) !== 'bytes') return conv(f, native);
    if (!mysqlGeometry) reject(`is bytes of ${src?.col.dbType || 'a column'} that is not MySQL/MariaDB spatial; ${col.dbType} takes those, or text (WKT, hex EWKB)`);
    if (Buffer.isBuffer(native)) return mysqlGeometryToEwkbHex(native);
    const s = stringValue(f);
    if (!BASE64.test(s)) reject(`is not base64 (bytes columns take base64 text)`);
    return mysqlGeometryToEwkbHex(Buffer.from(s, 'base64'));
  };
}
