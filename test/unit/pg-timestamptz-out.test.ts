import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestamp } from '../../src/connectors/postgres/binary-times.js';
import { PgBinder } from '../../src/connectors/postgres/bind.js';
import { OFFSET } from '../../src/connectors/sql/values/bind-rules.js';
import type { ColumnInfo } from '../../src/connectors/sql/types.js';

/** How a timestamptz value left PgBinder before its quick path (f25d8ad): the reference. */
function reference(s: string): string {
  const bc = / BC$/i.test(s);
  const core = bc ? s.slice(0, -3) : s;
  if (OFFSET.test(core) || /^[+-]?infinity$/i.test(s)) return s;
  return `${/\d:\d\d/.test(core) ? core : `${core} 00:00:00`}+00${bc ? ' BC' : ''}`;
}

const col = { name: 'c', type: 'timestamptz', dbType: 'timestamp with time zone', nullable: true } as ColumnInfo;
const out = (s: string): unknown => (new PgBinder() as unknown as { outTemporal(s: string, c: ColumnInfo): unknown }).outTemporal(s, col);
const two = (n: number) => String(n).padStart(2, '0');
const dateTimes = fc
  .record({ y: fc.integer({ min: 0, max: 9999 }), mo: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }), h: fc.integer({ min: 0, max: 23 }), mi: fc.integer({ min: 0, max: 59 }), s: fc.integer({ min: 0, max: 59 }), frac: fc.stringMatching(/^\d{0,9}$/), sep: fc.constantFrom(' ', 'T'), tail: fc.constantFrom('', 'Z', '+02', '-05:30', ' BC', '+00') })
  .map((t) => `${String(t.y).padStart(4, '0')}-${two(t.mo)}-${two(t.d)}${t.sep}${two(t.h)}:${two(t.mi)}:${two(t.s)}${t.frac ? `.${t.frac}` : ''}${t.tail}`);

describe('timestamptz values into PostgreSQL', () => {
  it('leave PgBinder as they did before its quick path, whatever their spelling', () => {
    fc.assert(fc.property(fc.oneof(dateTimes, fc.string(), fc.constantFrom('2024-01-01', 'infinity', '-infinity', '2024-01-01 BC')), (s) => {
      expect(out(s)).toBe(reference(s));
    }), { numRuns: 3000 });
  });

  it("are encoded in binary to the same instant with PgBinder's +00 as without it", () => {
    const enc = (v: string, zone: 'utc' | 'allowed') => {
      const b = Buffer.alloc(16);
      const end = timestamp(zone)(v, b, 0);
      return typeof end === 'number' ? b.subarray(0, end).toString('hex') : String(end);
    };
    fc.assert(
      fc.property(dateTimes.filter((s) => !/(Z|[+-]\d\d(:\d\d)?| BC)$/.test(s)), (s) => {
        expect(enc(`${s}+00`, 'utc')).toBe(enc(s, 'utc'));
        expect(enc(`${s}+00`, 'allowed')).toBe(enc(s, 'utc'));
      }),
      { numRuns: 3000 },
    );
  });

  it('are encoded to their own instant when the encoder meets them right after another value left PgBinder', () => {
    const enc = (v: string, zone: 'utc' | 'allowed' | 'none') => {
      const b = Buffer.alloc(16);
      const end = timestamp(zone)(v, b, 0);
      return typeof end === 'number' ? b.subarray(0, end).toString('hex') : String(end);
    };
    const zoneless = dateTimes.filter((s) => !/(Z|[+-]\d\d(:\d\d)?| BC)$/.test(s));
    fc.assert(
      fc.property(zoneless, zoneless, fc.constantFrom('utc' as const, 'allowed' as const, 'none' as const), (a, b, zone) => {
        const fresh = enc(`${b}+00`, zone);
        const madeA = out(a);
        expect(enc(`${b}+00`, zone)).toBe(fresh);
        // The text PgBinder made last, met right away, against the same text read when it was not the last (b came after).
        const viaLast = typeof madeA === 'string' ? enc(madeA, zone) : undefined;
        out(b);
        if (typeof madeA === 'string') expect(viaLast).toBe(enc(madeA, zone));
      }),
      { numRuns: 3000 },
    );
  });
});
