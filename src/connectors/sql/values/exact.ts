/**
 * Exact arithmetic on number text: what a value is, independent of how it was spelled, so that a
 * binder can tell "lands as the same value" from "would be rounded" without going through a double.
 */

/** A finite decimal as sign, integer digits (no leading zeros) and fraction digits (no trailing zeros). */
export interface Decimal {
  neg: boolean;
  int: string;
  frac: string;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * The common spelling, `-?digits[.digits]` (`-123.4500`, as DECIMAL columns give it), read by
 * character codes: a pattern and its match array per value cost a million-row copy 0.1 s.
 */
function plainDecimal(text: string): Decimal | undefined {
  const n = text.length;
  const minus = text.charCodeAt(0) === 45 ? 1 : 0;
  let i = minus;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intEnd = i;
  if (intEnd === minus) return undefined;
  let fracStart = n;
  if (i < n) {
    if (text.charCodeAt(i) !== 46) return undefined;
    fracStart = ++i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i !== n || i === fracStart) return undefined;
  }
  let a = minus;
  while (a < intEnd && text.charCodeAt(a) === 48) a++;
  let b = n;
  while (b > fracStart && text.charCodeAt(b - 1) === 48) b--;
  const int = text.slice(a, intEnd);
  const frac = b > fracStart ? text.slice(fracStart, b) : '';
  return { neg: minus === 1 && (int !== '' || frac !== ''), int, frac };
}

/** Parses decimal text (JSON number syntax, plus a leading `+`, `.5` and `5.`); undefined when it is not one. */
export function parseDecimal(text: string): Decimal | undefined {
  // The common spelling without exponent arithmetic.
  const p = plainDecimal(text);
  if (p) return p;
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  let int = m[2] ?? '';
  let frac = m[3] ?? '';
  if (int === '' && frac === '') return undefined;
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 100_000) return undefined;
  if (exp > 0) {
    const take = frac.slice(0, exp);
    int += take.padEnd(exp, '0');
    frac = frac.slice(exp);
  } else if (exp < 0) {
    const k = -exp;
    frac = int.slice(Math.max(0, int.length - k)).padStart(k, '0') + frac;
    int = int.slice(0, Math.max(0, int.length - k));
  }
  int = int.replace(/^0+/, '');
  frac = frac.replace(/0+$/, '');
  return { neg: m[1] === '-' && (int !== '' || frac !== ''), int, frac };
}

/** Plain decimal text of a parsed decimal (`-12.5`, `0.001`, `0`), optionally padded to `scale` digits. */
export function decimalText(d: Decimal, scale = 0): string {
  const frac = d.frac.length < scale ? d.frac.padEnd(scale, '0') : d.frac;
  return `${d.neg ? '-' : ''}${d.int || '0'}${frac ? `.${frac}` : ''}`;
}

export const sameDecimal = (a: Decimal, b: Decimal): boolean => a.neg === b.neg && a.int === b.int && a.frac === b.frac;

/** The decimal a double holds in its shortest round-trip spelling (`1e+35` → 100000000000000000000000000000000000). */
export function decimalOfDouble(n: number): Decimal {
  return parseDecimal(String(n))!;
}

/** Whether decimal text means the same number as the double it parses to: no digit is lost going through a double. */
export function fitsDouble(d: Decimal): boolean {
  const n = Number(decimalText(d));
  return Number.isFinite(n) && sameDecimal(decimalOfDouble(n), d);
}

/** Shortest decimal that reads back as the same 32-bit float (what PostgreSQL prints for real). */
export function shortestFloat32(n: number): string {
  const f = Math.fround(n);
  if (!Number.isFinite(f) || f === 0) return String(f);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return String(Number(s));
  }
  return String(f);
}

/** Significant digits of a decimal (`0.00120` → 2). */
const significant = (d: Decimal): number => (d.int + d.frac).replace(/^0+/, '').length;

/**
 * Whether decimal text is a 32-bit float's value as databases print it: a shortest spelling of the
 * float it rounds to (on a tie, PostgreSQL and JavaScript may pick different last digits of the same
 * float); more digits would be rounded away.
 */
export function fitsFloat32(d: Decimal): boolean {
  const f = Math.fround(Number(decimalText(d)));
  if (!Number.isFinite(f)) return false;
  const shortest = parseDecimal(shortestFloat32(f));
  return shortest !== undefined && (sameDecimal(shortest, d) || (significant(d) === significant(shortest) && f !== 0));
}

/** Integer text within [min, max] (exact, any length). */
export function integerInRange(d: Decimal, min: string | undefined, max: string | undefined): boolean {
  if (d.frac !== '') return false;
  if (min === undefined && max === undefined) return true;
  // Up to 15 digits a double is exact; bounds of 20 digits still order correctly against them.
  if (d.int.length <= 15) {
    const n = d.neg ? -Number(d.int) : Number(d.int || '0');
    if ((min === undefined || min.length <= 15 || n > Number(min) + 1e5) && (max === undefined || max.length <= 15 || n < Number(max) - 1e5))
      return (min === undefined || n >= Number(min)) && (max === undefined || n <= Number(max));
  }
  const v = BigInt(`${d.neg ? '-' : ''}${d.int || '0'}`);
  return (min === undefined || v >= BigInt(min)) && (max === undefined || v <= BigInt(max));
}

const SPECIALS: Record<string, string> = { nan: 'NaN', infinity: 'Infinity', '+infinity': 'Infinity', '-infinity': '-Infinity', inf: 'Infinity', '+inf': 'Infinity', '-inf': '-Infinity' };

/** `NaN`, `Infinity`, `-Infinity` in any spelling PostgreSQL accepts, or undefined. */
export function specialNumber(text: string): 'NaN' | 'Infinity' | '-Infinity' | undefined {
  // Numbers start with a digit, a sign and a digit, or a dot: no lookup for them.
  const c = text.charCodeAt(0);
  if ((c >= 48 && c <= 57) || c === 46 || ((c === 45 || c === 43) && text.charCodeAt(1) >= 46 && text.charCodeAt(1) <= 57)) return undefined;
  return SPECIALS[text.trim().toLowerCase()] as 'NaN' | 'Infinity' | '-Infinity' | undefined;
}
