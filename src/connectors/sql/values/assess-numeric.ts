import type { Side, Verdict } from './assess.js';
import type { ColumnInfo } from '../types.js';

const INT64: [bigint, bigint] = [-(2n ** 63n), 2n ** 63n - 1n];

/** The integer range a column's values can take (what they do take, with a profile), unbounded where the type does not say. */
function range(c: ColumnInfo, profile?: Record<string, number | string>): [bigint | undefined, bigint | undefined] {
  if (profile) return profile.integer_min === undefined ? [0n, 0n] : [BigInt(profile.integer_min), BigInt(profile.integer_max!)];
  if (c.min !== undefined && c.max !== undefined) return [BigInt(c.min), BigInt(c.max)];
  if (c.type === 'bool') return [0n, 1n];
  return c.affinity === undefined ? [undefined, undefined] : INT64;
}

const within = (inner: [bigint | undefined, bigint | undefined], outer: [bigint | undefined, bigint | undefined]): boolean =>
  (outer[0] === undefined || (inner[0] !== undefined && inner[0] >= outer[0])) && (outer[1] === undefined || (inner[1] !== undefined && inner[1] <= outer[1]));

/** Integer digits a decimal column keeps (undefined: unbounded). */
const intDigits = (c: ColumnInfo): number | undefined => (c.precision === undefined ? undefined : c.precision - (c.scale ?? 0));

/** Verdict of number into number (bool counts as one): ranges, digits, NaN/±Infinity and -0 the target cannot keep. */
export function numeric(s: Side, d: Side, v: Verdict): void {
  const sc = s.col;
  const dc = d.col;
  const st = sc.type;
  const dt = dc.type;
  // NaN / ±Infinity the source column can hold (PostgreSQL numeric(p,s) takes NaN but not Infinity).
  const srcNaN = (st === 'float' && s.binder.floatNaN) || (st === 'decimal' && s.binder.holds.decimalSpecials);
  const srcInf = (st === 'float' && s.binder.floatInfinity) || (st === 'decimal' && s.binder.holds.decimalSpecials && sc.precision === undefined);
  if (dt === 'bool') {
    if (st !== 'bool' || (sc.variant === 'tinybool' || sc.affinity !== undefined) !== (dc.variant === 'tinybool' || dc.affinity !== undefined)) {
      if (!(dc.variant === 'tinybool' || dc.affinity !== undefined) || !within(range(sc), range(dc))) v.rejects.push('values other than true/false (0/1)');
    }
    return;
  }
  if (st === 'bool') {
    v.lossy.push('booleans become 1 and 0');
    return;
  }
  if (dt === 'int' || dt === 'bigint') {
    if (dc.variant === 'year' && sc.variant !== 'year') v.rejects.push('numbers other than 0 and 1901–2155 (YEAR)');
    else if (st === 'float' || (st === 'decimal' && (sc.scale === undefined || sc.scale > 0))) v.rejects.push('numbers with a fraction, and those out of range');
    else if (!within(st === 'decimal' ? decimalRange(sc) : range(sc, s.profile), range(dc))) v.rejects.push(`integers outside ${dc.min ?? '-2^63'}..${dc.max ?? '2^63-1'}`);
    return;
  }
  if (dt === 'float') {
    if (st === 'float' && sc.floatBits !== 24 && dc.floatBits === 24) v.rejects.push('doubles that a 4-byte float cannot hold exactly');
    if (st === 'decimal' || (st !== 'float' && !within(range(sc), [-(2n ** 53n), 2n ** 53n]))) v.rejects.push('numbers with more digits than a double holds');
    if (st === 'float' && s.binder.floatNaN && !d.binder.floatNaN) v.rejects.push('NaN');
    if (st === 'float' && s.binder.floatInfinity && !d.binder.floatInfinity) v.rejects.push('±Infinity');
    if (st === 'decimal' && srcNaN) v.rejects.push('NaN');
    if (st === 'decimal' && srcInf) v.rejects.push('±Infinity');
    if (st === 'float' && s.binder.holds.negativeZero && !keepsNegativeZero(d)) v.rejects.push('-0 (the column does not keep the sign of zero)');
    return;
  }
  // dt === 'decimal'
  if (d.binder.holds.untyped) {
    if (st === 'decimal' && (sc.precision === undefined || sc.precision > 15)) v.rejects.push('decimals with more than 15 significant digits (SQLite keeps DECIMAL as REAL)');
    else if (st === 'int' || st === 'bigint') {
      if (!within(range(sc), INT64)) v.rejects.push('integers beyond 64 bits');
    }
    if (srcNaN) v.rejects.push('NaN');
    if (srcInf && !d.binder.floatInfinity) v.rejects.push('±Infinity');
    return;
  }
  const nanOk = d.binder.holds.decimalSpecials;
  const infOk = nanOk && dc.precision === undefined;
  if (srcNaN && !nanOk) v.rejects.push('NaN');
  if (srcInf && !infOk) v.rejects.push('±Infinity');
  if (st === 'float') {
    if (dc.precision !== undefined) v.rejects.push(`floats beyond ${dc.dbType}'s digits`);
    return;
  }
  const sInt = st === 'decimal' ? intDigits(sc) : digitsOf(range(sc));
  const dInt = intDigits(dc);
  if (dInt !== undefined && (sInt === undefined || sInt > dInt)) v.rejects.push(`numbers with more than ${dInt} integer digits`);
  if (st === 'decimal' && dc.scale !== undefined && dc.precision !== undefined && (sc.scale === undefined || sc.precision === undefined || sc.scale > dc.scale))
    v.rejects.push(`numbers with more than ${dc.scale} fractional digits (${dc.dbType} would round them)`);
}

const decimalRange = (c: ColumnInfo): [bigint | undefined, bigint | undefined] => {
  const n = intDigits(c);
  if (n === undefined) return [undefined, undefined];
  const m = 10n ** BigInt(n) - 1n;
  return [-m, m];
};

const digitsOf = (r: [bigint | undefined, bigint | undefined]): number | undefined =>
  r[0] === undefined || r[1] === undefined ? undefined : Math.max(String(r[0]).replace('-', '').length, String(r[1]).length);

const keepsNegativeZero = (d: Side): boolean => d.binder.holds.negativeZero || d.col.affinity === 'blob';
