import fc from 'fast-check';

/**
 * Generators shared by the round-trip catalogues: values people really store, with the edges that
 * broke us mixed in. Each column's values are the edges plus `n` generated ones from a fixed seed
 * (BRIDGE_ROUNDTRIP_SEED changes it; npm run test:fuzz runs more and other seeds).
 */
export const SEED = Number(process.env.BRIDGE_ROUNDTRIP_SEED ?? 20261122);
export const PER_COLUMN = Number(process.env.BRIDGE_ROUNDTRIP_VALUES ?? 8);

/** One column of a source table: its declared type, its comparison family, and the SQL literals to insert. */
export interface Case {
  col: string;
  ddl: string;
  family: Family;
  /** SQL literals (in the source kind's syntax) inserted one per row. */
  values: string[];
}

export type Family =
  | 'int'
  | 'bool'
  | 'decimal'
  | 'float'
  /** 4-byte floats: equal when they are the same 32-bit float (a tie may print either last digit). */
  | 'float4'
  | 'text'
  | 'json'
  | 'bytes'
  | 'bits'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'array'
  | 'any';

/** Edges first, then generated values, as literals. */
export function values<T>(edges: string[], arb: fc.Arbitrary<T>, lit: (v: T) => string, salt: number): string[] {
  const generated = fc.sample(arb, { seed: SEED + salt, numRuns: PER_COLUMN });
  return [...edges, ...generated.map(lit)];
}

/** Text as people write it: unicode (emoji, combining marks), tabs, newlines, quotes, backslashes, `\N`. */
export const textArb = (maxLength = 30, nul = false): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.string({ unit: 'grapheme', maxLength }),
      fc.string({ unit: fc.constantFrom('a', ' ', '\t', '\n', '\r', '\\', "'", '"', 'N', '😀', 'é', ',', '{', '}', ...(nul ? ['\u0000'] : [])), maxLength }),
    )
    .map((s) => [...s].slice(0, maxLength).join(''));

export const TEXT_EDGES = ['', '\\N', 'tab\there', 'line\nbreak\r\n', 'emoji 😀 é ñ 中文', `quote ' and " and \\ back`, '{"a":30.00}', 'NULL', ' leading and trailing '];

/** Decimal text with `int` integer digits at most and `frac` fraction digits at most. */
export const decimalArb = (int: number, frac: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.boolean(), fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: int }), fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: frac }))
    .map(([neg, i, f]) => `${neg ? '-' : ''}${i.replace(/^0+(?=\d)/, '')}${f ? `.${f}` : ''}`);

/** A double's shortest text (what databases print), finite only. */
export const doubleArb = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? '-0' : String(n)));

/** A 32-bit float's shortest text. */
export const floatArb = fc.float({ noNaN: true, noDefaultInfinity: true }).map((n) => {
  if (Object.is(n, -0)) return '-0';
  for (let p = 1; p <= 9; p++) {
    const s = n.toPrecision(p);
    if (Math.fround(Number(s)) === n) return String(Number(s));
  }
  return String(n);
});

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** JSON documents: nested, with the spellings normalising stores change (30.00, 1e2, spaces, duplicate keys). */
export const jsonArb: fc.Arbitrary<string> = fc
  .jsonValue({ maxDepth: 2 })
  .map((v) => JSON.stringify(v))
  .filter((s) => !s.includes('\\u0000') && Buffer.byteLength(s) < 2000);
export const JSON_EDGES = ['{"a":30.00}', '{"a": 1, "a": 2}', '{ "z" : [1.10, 2E3, -0.0] , "b":null }', '"just a string"', '12.50', 'true', '[]', '{"deep":{"x":[{"y":"\\u00e9\\n"}]}}'];

/** A date `YYYY-MM-DD` in [1000, 9999] (valid on every kind). */
export const dateArb = fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

/** A wall-clock timestamp with up to `digits` fractional digits. */
export const timestampArb = (digits = 6): fc.Arbitrary<string> =>
  fc
    .tuple(dateArb, fc.integer({ min: 0, max: 86399 }), fc.integer({ min: 0, max: 10 ** digits - 1 }))
    .map(([d, secs, frac]) => `${d} ${clock(secs)}${digits && frac ? `.${String(frac).padStart(digits, '0')}` : ''}`);

export const clock = (secs: number): string =>
  `${String(Math.floor(secs / 3600)).padStart(2, '0')}:${String(Math.floor(secs / 60) % 60).padStart(2, '0')}:${String(secs % 60).padStart(2, '0')}`;

export const uuidArb = fc.uuid();
