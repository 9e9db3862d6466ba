import { Reject } from '../sql/values/bind-rules.js';

/** On a WKB type word, PostGIS's EWKB flag: a 4-byte SRID follows the type word. */
const SRID_FLAG = 0x20000000;

/**
 * The largest SRID PostGIS keeps: a larger one it folds into its reserved range (900000–999999)
 * with only a NOTICE, which would change the value without an error.
 */
export const POSTGIS_MAX_SRID = 999999;

/**
 * MySQL/MariaDB's geometry bytes (a 4-byte little-endian SRID, then WKB) as hex EWKB, the text
 * PostGIS reads as a geometry or geography with its SRID. The WKB keeps its own byte order (its
 * first byte: 0 big-endian, 1 little-endian); the SRID flag goes on its type word and the SRID
 * right after it, both in that order. Only the outer geometry carries the SRID: EWKB gives it once,
 * and the geometries inside a collection keep their plain type words. SRID 0 (none) is the WKB
 * as it is. Throws Reject for bytes that are not such a value, and for SRIDs PostGIS would change.
 */
export function mysqlGeometryToEwkbHex(value: Uint8Array): string {
  if (value.length < 9) throw new Reject(`is ${value.length} bytes, not a MySQL geometry (a 4-byte SRID, then WKB: 9 bytes at least)`);
  const b = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const srid = b.readUInt32LE(0);
  const order = b[4]!;
  if (order !== 0 && order !== 1) throw new Reject(`is not a MySQL geometry: the byte order of its WKB is ${order}, not 0 or 1`);
  const le = order === 1;
  const type = le ? b.readUInt32LE(5) : b.readUInt32BE(5);
  // MySQL writes plain WKB; a type word that already says "SRID follows" would get a second one.
  if ((type & SRID_FLAG) !== 0) throw new Reject(`is not a MySQL geometry: its WKB type word (0x${type.toString(16)}) already carries an SRID`);
  const wkb = b.subarray(4);
  if (srid === 0) return wkb.toString('hex');
  if (srid > POSTGIS_MAX_SRID) throw new Reject(`has SRID ${srid}; PostGIS keeps SRIDs up to ${POSTGIS_MAX_SRID} and would change it`);
  const out = Buffer.allocUnsafe(wkb.length + 4);
  out[0] = order;
  // `| ` gives a signed 32-bit number; `>>> 0` makes it the unsigned word the writers take.
  const flagged = (type | SRID_FLAG) >>> 0;
  if (le) {
    out.writeUInt32LE(flagged, 1);
    out.writeUInt32LE(srid, 5);
  } else {
    out.writeUInt32BE(flagged, 1);
    out.writeUInt32BE(srid, 5);
  }
  wkb.copy(out, 9, 5);
  return out.toString('hex');
}
