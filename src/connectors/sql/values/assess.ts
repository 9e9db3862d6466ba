import { numeric } from './assess-numeric.js';
import type { Binder } from './bind.js';
import { varyingBits } from './bit-strings.js';
import type { ColumnInfo, LogicalType } from '../types.js';

/** One side of a column mapping: the column and what its kind can hold. */
export interface Side {
  col: ColumnInfo;
  binder: Binder;
  /** SQLite sources in a dry run: how many values of each storage class the column holds. */
  profile?: Record<string, number | string> | undefined;
}

/**
 * The dry run's verdict on one source column → target column: values that land changed (`lossy`,
 * documented and counted) and values the target refuses (`rejects`, one rejection per message).
 * The same facts the binders act on, stated per type instead of per value: the round-trip suite
 * checks that every pair that was not exact is flagged, and that nothing exact is.
 */
export interface Verdict {
  lossy: string[];
  rejects: string[];
  /** Set when every lossy line concerns some values only (SQLite's other storage classes into text): which; the rest land exactly. */
  lossyWhen?: (value: unknown) => boolean;
}

const NUMERIC = new Set<LogicalType>(['int', 'bigint', 'decimal', 'float', 'bool']);
const TEMPORAL = new Set<LogicalType>(['date', 'time', 'timestamp', 'timestamptz']);

/** Verdict for writing values of `s` into `d`. */
export function assess(s: Side, d: Side): Verdict {
  const v: Verdict = { lossy: [], rejects: [] };
  const st = s.col.type;
  const dt = d.col.type;
  if (d.binder.holds.untyped && s.binder.holds.untyped) {
    // Both SQLite: values go as stored; only a different affinity converts them.
    if ((s.col.affinity ?? 'blob') !== (d.col.affinity ?? 'blob')) v.lossy.push(`SQLite converts values to the target's ${d.col.affinity} affinity`);
    return v;
  }
  if (NUMERIC.has(dt) && NUMERIC.has(st)) numeric(s, d, v);
  else if (NUMERIC.has(dt)) v.rejects.push(`${st} values that are not numbers`);
  else if (TEMPORAL.has(dt)) temporal(s, d, v);
  else if (dt === 'json') json(s, d, v);
  else if (dt === 'bytes') bytes(s, d, v);
  else if (dt === 'array') {
    if (st !== 'array') v.rejects.push('values that are not arrays');
  } else if (dt === 'uuid') {
    if (st !== 'uuid') v.rejects.push('text that is not a UUID');
  } else text(s, d, v);
  if (s.binder.holds.untyped) storageClasses(s, d, v);
  return { lossy: [...new Set(v.lossy)], rejects: [...new Set(v.rejects)], ...(v.lossyWhen ? { lossyWhen: v.lossyWhen } : {}) };
}

function temporal(s: Side, d: Side, v: Verdict): void {
  const st = s.col.type;
  const dt = d.col.type;
  if (!TEMPORAL.has(st)) {
    v.rejects.push(`${st} values that are not a ${dt}`);
    return;
  }
  const sf = s.col.fraction ?? (s.binder.holds.untyped ? 9 : 6);
  if (d.col.fraction !== undefined && sf > d.col.fraction && st !== 'date') v.rejects.push(`times with more than ${d.col.fraction} fractional digits (${d.col.dbType} would round them)`);
  if (st === 'date' && dt !== 'date' && dt !== 'timestamp' && dt !== 'timestamptz') v.rejects.push('dates, which are not times');
  if ((st === 'timestamp' || st === 'timestamptz') && dt === 'date') v.rejects.push('timestamps with a time of day');
  if (st === 'time' && dt !== 'time') v.rejects.push('times of day, which are not dates');
  if (st !== 'time' && dt === 'time') v.rejects.push('dates, which are not times of day');
  const dated = st !== 'time' && dt !== 'time' && !d.binder.holds.untyped;
  if (dated && s.binder.holds.dateInfinity && !d.binder.holds.dateInfinity) v.rejects.push('±infinity');
  if (dated && s.binder.holds.bcDates && !d.binder.holds.bcDates) v.rejects.push('dates before year 1000 or after 9999 (BC dates)');
  if (dated && s.binder.holds.zeroDates && !d.binder.holds.zeroDates) v.rejects.push('zero dates (0000-00-00)');
  if (st === 'time' && dt === 'time' && s.col.variant === 'duration' && d.col.variant !== 'duration' && !d.binder.holds.untyped) v.rejects.push('durations below 00:00:00 or beyond 24:00:00');
  if (st === 'time' && s.col.variant === 'timetz' && d.col.variant !== 'timetz') v.rejects.push('times with a zone offset');
  if (d.col.variant === 'instant' && s.col.variant !== 'instant') v.rejects.push('instants outside 1970–2038 (TIMESTAMP)');
}

function json(s: Side, d: Side, v: Verdict): void {
  const st = s.col.type;
  const normalises = d.col.variant === 'jsonb';
  if (st === 'json' || st === 'text' || st === 'uuid' || TEMPORAL.has(st)) {
    if (st !== 'json') v.rejects.push('text that is not JSON');
    // A SQLite column declared JSON is not checked (one made with CHECK (json_valid(…)) is, and has TEXT affinity).
    else if (s.col.affinity !== undefined && s.col.affinity !== 'text') v.rejects.push('text that is not JSON (SQLite does not check a column declared JSON)');
    if (normalises && s.col.variant !== 'jsonb') {
      v.lossy.push('jsonb normalises documents (whitespace, key order, duplicate keys, number spelling)');
      if (s.binder.textNul || st === 'json') v.rejects.push('\\u0000, which jsonb cannot store');
    }
  } else if (st === 'bytes') v.lossy.push('bytes become a JSON string of their base64');
  else if ((st === 'float' && (s.binder.floatNaN || s.binder.floatInfinity)) || (st === 'decimal' && s.binder.holds.decimalSpecials)) v.rejects.push('NaN and ±Infinity, which JSON numbers cannot be');
  if (d.col.affinity !== undefined && d.col.affinity !== 'text' && d.col.affinity !== 'blob' && (st === 'json' || st === 'text' || NUMERIC.has(st)))
    v.rejects.push(`top-level JSON numbers whose text SQLite's ${d.col.affinity} affinity would change`);
}

function bytes(s: Side, d: Side, v: Verdict): void {
  const st = s.col.type;
  // A bit string (PostgreSQL bit/varbit) into MySQL BIT: its bits land, up to the width.
  if (st === 'text' && s.col.variant === 'bit' && d.col.variant === 'bit') {
    const sb = s.col.maxLength;
    const db = d.col.maxLength ?? 1;
    if (sb === undefined || sb > db) v.rejects.push(`values of more than ${db} bits`);
    if (varyingBits(s.col.dbType)) v.lossy.push(`bit strings shorter than ${db} bits land padded with leading zeros`);
    return;
  }
  if (st !== 'bytes') {
    if (st === 'text') v.lossy.push('text stored as its UTF-8 bytes');
    else v.rejects.push(`${st} values, which are not bytes`);
    return;
  }
  const sl = s.col.maxLength;
  const dl = d.col.maxLength;
  if (d.col.variant === 'bit' || s.col.variant === 'bit') {
    const sb = s.col.variant === 'bit' ? sl : sl === undefined ? undefined : sl * 8;
    const db = d.col.variant === 'bit' ? dl : dl === undefined ? undefined : dl * 8;
    if (db !== undefined && (sb === undefined || sb > db)) v.rejects.push(`values of more than ${db} bits`);
  } else if (dl !== undefined && (sl === undefined || sl > dl)) v.rejects.push(`values longer than ${dl} bytes`);
  else if (d.col.maxBytes !== undefined && (s.col.maxBytes === undefined || s.col.maxBytes > d.col.maxBytes) && (sl === undefined || sl > d.col.maxBytes))
    v.rejects.push(`values longer than ${d.col.maxBytes} bytes`);
}

function text(s: Side, d: Side, v: Verdict): void {
  const sc = s.col;
  const dc = d.col;
  if (dc.variant === 'bit') return bitString(s, d, v);
  if (sc.type === 'bytes' && dc.variant === 'spatial') {
    // Bytes into a spatial column that reads text (PostGIS): its kind converts them and says what lands.
    const k = d.binder.spatialVerdict(dc, sc);
    v.lossy.push(...k.lossy);
    v.rejects.push(...k.rejects);
    return;
  }
  if (sc.type === 'bytes') v.lossy.push('bytes stored as their base64 text');
  const textual = (sc.type === 'text' && sc.variant !== 'inet' && (!sc.labels || sc.labels.some((l) => l.includes('\u0000')))) || sc.type === 'json';
  if (textual && s.binder.textNul && !d.binder.textNul) v.rejects.push(`text holding NUL (\\u0000), which ${dc.dbType} cannot store`);
  const sChars = sc.maxLength ?? (sc.maxBytes !== undefined ? sc.maxBytes : sc.type === 'uuid' ? 36 : undefined);
  if (dc.maxLength !== undefined && (sChars === undefined || sChars > dc.maxLength)) v.rejects.push(`values longer than ${dc.maxLength} characters`);
  // Values land as the source reads them: the target's comparisons then see (or miss) the spaces.
  if (sc.padded === 'kept' && !dc.padded) v.lossy.push(`${sc.dbType} padding kept: values land padded with spaces to ${sc.maxLength} characters ('ab' as '${'ab'.padEnd(Math.min(sc.maxLength ?? 5, 5))}'), where ${dc.dbType} compares them with the spaces`);
  // MySQL/MariaDB CHAR (padded 'trimmed') never returns trailing spaces: what it reads lands exactly, nothing to flag.
  const sBytes = sc.maxBytes ?? (sc.maxLength !== undefined ? sc.maxLength * 4 : sc.type === 'uuid' ? 36 : undefined);
  if (dc.maxBytes !== undefined && (sBytes === undefined || sBytes > dc.maxBytes)) v.rejects.push(`values longer than ${dc.maxBytes} bytes`);
  if (dc.labels) {
    const same = sc.labels !== undefined && sc.variant === dc.variant && sc.labels.every((l) => dc.labels!.includes(l));
    if (!same) v.rejects.push(`values that are not ${dc.variant === 'set' ? 'members' : 'labels'} of ${dc.dbType}`);
    else if (dc.variant === 'enum' && s.binder.holds.invalidEnum && !dc.labels.includes('')) v.rejects.push("'', the marker of an invalid ENUM value (strict mode cannot write it)");
    if (dc.variant === 'set' && same && sc.labels!.some((l, i) => dc.labels!.indexOf(l) < (i > 0 ? dc.labels!.indexOf(sc.labels![i - 1]!) : -1))) v.rejects.push('sets whose members the target orders differently');
  }
}

/** SQLite storage classes that land exactly in a target family. */
function classesFor(t: LogicalType): Set<string> {
  if (t === 'int' || t === 'bigint' || t === 'bool') return new Set(['integer']);
  if (t === 'float') return new Set(['real']);
  if (t === 'decimal') return new Set(['integer', 'real']);
  if (t === 'bytes') return new Set(['blob']);
  if (t === 'json') return new Set(['text', 'integer', 'real']);
  return new Set(['text']);
}

/**
 * SQLite does not enforce declared types: a value of another storage class than the target takes
 * is rejected, or (into text) lands as its text. With the column's profile (dry run), the verdict
 * names what is there; without it, what could be.
 */
function storageClasses(s: Side, d: Side, v: Verdict): void {
  const dt = d.col.type;
  const fits = classesFor(dt);
  const intoText = dt === 'text' && !d.col.labels && d.col.maxLength === undefined;
  // Run last (assess): with no other loss before it, only the values it names are lossy.
  if (intoText && v.lossy.length === 0) v.lossyWhen = (x) => typeof x !== 'string';
  const say = (what: string): void => void (intoText ? v.lossy.push(`${what} land as text (numbers as their digits, blobs as base64)`) : v.rejects.push(`${what} (SQLite does not enforce the declared type)`));
  if (!s.profile) {
    // No declared type, or ANY (kept as given in a STRICT table, NUMERIC elsewhere): any storage class.
    const own = s.col.dbType === '' || s.col.dbType.toUpperCase() === 'ANY' ? undefined : classesFor(s.col.type);
    if (!own || [...own].some((c) => !fits.has(c)) || !intoText) say(own ? `values of another storage class than ${[...fits].join('/')}` : 'values of mixed storage classes');
    return;
  }
  for (const [cls, n] of Object.entries(s.profile)) if (typeof n === 'number' && cls !== 'null' && n > 0 && !fits.has(cls)) say(`${n} ${cls} value${n === 1 ? '' : 's'}`);
}

/** Into PostgreSQL bit(n)/varbit(n): bit strings and MySQL BIT bytes keep their bits; other text must be 0s and 1s. */
function bitString(s: Side, d: Side, v: Verdict): void {
  const sc = s.col;
  const dc = d.col;
  const fixed = !varyingBits(dc.dbType);
  if (sc.variant !== 'bit') v.rejects.push(`values that are not bit strings of ${fixed ? 'exactly' : 'at most'} ${dc.maxLength ?? 'any number of'} bits`);
  else if (dc.maxLength !== undefined && (sc.maxLength === undefined || sc.maxLength > dc.maxLength)) v.rejects.push(`values of more than ${dc.maxLength} bits`);
  else if (fixed && sc.type === 'text' && (sc.maxLength !== dc.maxLength || varyingBits(sc.dbType))) v.rejects.push(`bit strings not exactly ${dc.maxLength} bits long`);
  else if (!fixed && sc.type === 'bytes') v.lossy.push('MySQL BIT values land as whole bytes of bits (BIT(5) b\'00101\' as 00000101)');
}

const notNull = (value: unknown): boolean => value !== null;

/** Which values of a column a verdict calls lossy, to count them: none, those it names, or every value but NULL. */
export function lossyValues(v: Verdict): ((value: unknown) => boolean) | undefined {
  if (v.lossy.length === 0) return undefined;
  const only = v.lossyWhen;
  return only ? (x) => x !== null && only(x) : notNull;
}
