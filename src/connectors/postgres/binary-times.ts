import { digits, int64, NOT_BINARY, put32, type Encode } from './binary-values.js';

/* PostgreSQL's binary date and timestamps: days and microseconds since 2000-01-01, from ISO text. */

const DATETIME = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?(Z|[+-]\d\d(?::?\d\d(?::?\d\d)?)?)?$/;
/** Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch. */
const PG_EPOCH_DAYS = 10957;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const validDate = (y: number, m: number, d: number): boolean =>
  y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : MONTH_DAYS[m - 1]!);

/**
 * The text withUtcOffset made last and its microseconds. A row's converter runs before its encoder, so
 * the encoder meets the same string next and takes the count instead of reading the digits again
 * (and flattening the joined string to read them): 1M MariaDB DATETIMEs into timestamptz read each
 * value three times. Equal text has equal microseconds, so a match by content is as good.
 */
let lastUtc: string | undefined;
let lastUtcMicros: number | bigint = 0;

/** A zone-less `YYYY-MM-DD HH:MM:SS[.ffffff]` with `+00` added, or undefined when `v` is not one (see lastUtc). */
export function withUtcOffset(v: string): string | undefined {
  const us = zonelessMicros(v, v.length);
  if (us === undefined) return undefined;
  lastUtcMicros = us;
  return (lastUtc = `${v}+00`);
}

/** Microseconds since 2000-01-01 of a date and time text (zone-less read as UTC), or NOT_BINARY. */
function micros(v: unknown, zone: 'none' | 'allowed' | 'utc'): number | bigint | typeof NOT_BINARY {
  if (typeof v !== 'string') return NOT_BINARY;
  if (v === lastUtc && zone !== 'none') return lastUtcMicros;
  // `+00` (how values for timestamptz columns leave PgBinder) is UTC whatever the session's zone.
  const utc = zone !== 'none' && v.length > 22 && v.charCodeAt(v.length - 3) === 43 && v.charCodeAt(v.length - 2) === 48 && v.charCodeAt(v.length - 1) === 48;
  const quick = utc ? zonelessMicros(v, v.length - 3) : zone === 'allowed' ? undefined : zonelessMicros(v, v.length);
  if (quick !== undefined) return quick;
  const m = DATETIME.exec(v);
  if (!m || m[4] === undefined) return NOT_BINARY;
  const y = +m[1]!, mo = +m[2]!, d = +m[3]!, h = +m[4]!, mi = +m[5]!, s = +m[6]!;
  // 24:00:00, leap seconds and the like are left to the server's own rules (text).
  if (!validDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return NOT_BINARY;
  let secs = (daysFromCivil(y, mo, d) - PG_EPOCH_DAYS) * 86400 + h * 3600 + mi * 60 + s;
  const z = m[8];
  if (z === undefined) {
    if (zone === 'allowed') return NOT_BINARY; // read in the session's time zone, which is not known to be UTC
  } else {
    if (zone === 'none') return NOT_BINARY; // timestamp without time zone ignores an offset: the server decides
    if (z !== 'Z') {
      const digits = z.slice(1).replace(/:/g, '');
      const oh = +digits.slice(0, 2), om = +(digits.slice(2, 4) || 0), os = +(digits.slice(4, 6) || 0);
      if (oh > 15 || om > 59 || os > 59) return NOT_BINARY;
      secs -= (z[0] === '-' ? -1 : 1) * (oh * 3600 + om * 60 + os);
    }
  }
  const frac = m[7] === undefined ? 0 : +m[7].padEnd(6, '0');
  return microsOf(secs, frac);
}

/** Seconds and microseconds as one count, a BigInt beyond 2^53 (years before ~1715 or after ~2285). */
function microsOf(secs: number, frac: number): number | bigint {
  const us = secs * 1e6 + frac;
  return Number.isSafeInteger(us) ? us : BigInt(secs) * 1000000n + BigInt(frac);
}

/**
 * The common spelling `YYYY-MM-DD HH:MM:SS[.ffffff]` (no zone) in `v`'s first `len` characters, read
 * by character codes; undefined for anything else, which the full pattern reads.
 */
export function zonelessMicros(v: string, len: number): number | bigint | undefined {
  if (len < 19 || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return undefined;
  const sep = v.charCodeAt(10);
  if (sep !== 32 && sep !== 84) return undefined;
  let frac = 0;
  if (len > 19) {
    const n = len - 20;
    if (v.charCodeAt(19) !== 46 || n < 1 || n > 6) return undefined;
    frac = digits(v, 20, n);
    if (frac < 0) return undefined;
    for (let k = n; k < 6; k++) frac *= 10;
  }
  const y = digits(v, 0, 4), mo = digits(v, 5, 2), d = digits(v, 8, 2), h = digits(v, 11, 2), mi = digits(v, 14, 2), s = digits(v, 17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0 || !validDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  return microsOf((daysFromCivil(y, mo, d) - PG_EPOCH_DAYS) * 86400 + h * 3600 + mi * 60 + s, frac);
}

export const date: Encode = (v, b, off) => {
  if (typeof v !== 'string') return NOT_BINARY;
  const m = DATETIME.exec(v);
  if (!m || m[4] !== undefined || m[8] !== undefined) return NOT_BINARY;
  const y = +m[1]!, mo = +m[2]!, d = +m[3]!;
  if (!validDate(y, mo, d)) return NOT_BINARY;
  put32(b, off, 4);
  put32(b, off + 4, daysFromCivil(y, mo, d) - PG_EPOCH_DAYS);
  return off + 8;
};

export function timestamp(zone: 'none' | 'allowed' | 'utc'): Encode {
  return (v, b, off) => {
    const us = micros(v, zone);
    if (us === NOT_BINARY) return us;
    put32(b, off, 8);
    if (typeof us === 'bigint') {
      b.writeBigInt64BE(us, off + 4);
      return off + 12;
    }
    return int64(b, off + 4, us);
  };
}

