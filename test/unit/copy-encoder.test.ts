import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/core/message.js';
import { CopyTextEncoder } from '../../src/connectors/postgres/copy-encoder.js';
import { arrayLiteral } from '../../src/connectors/postgres/copy-text.js';

/** The reference: each value as a string by the rules of COPY text, rows joined, then encoded once (the path the encoder replaced). */
function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (Buffer.isBuffer(v)) return '\\\\x' + v.toString('hex');
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (Object.is(v, -0)) return '-0';
  const s = Array.isArray(v) ? arrayLiteral(v) : String(v);
  return s.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
}
const reference = (rows: unknown[][]): Buffer => Buffer.from(rows.map((r) => r.map((v) => copyValue(v)).join('\t') + '\n').join(''));

const value = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('\\', '\t', '\n', '\r', '\\N', 'é', '😀', '', ' ', '\u2028'),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.boolean(),
  fc.constant(null),
  fc.uint8Array({ maxLength: 20 }).map((a) => Buffer.from(a)),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)), { maxLength: 4 }),
);

describe('COPY text written straight into buffers', () => {
  it('is byte for byte the rows joined as strings and encoded once, for 1,000 generated batches (seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(value, { minLength: 1, maxLength: 8 }), { maxLength: 30 }), (rows) => {
        const enc = new CopyTextEncoder();
        for (const r of rows) enc.row(r);
        expect(Buffer.concat(enc.finish())).toEqual(reference(rows));
      }),
      { numRuns: 1000, seed: 15 },
    );
  });

  it('splits rows across chunks of about 256 KB and keeps a value of several MB whole', () => {
    const big = 'x'.repeat(3 * 1024 * 1024) + 'é\t';
    const rows: unknown[][] = [];
    for (let i = 0; i < 5000; i++) rows.push([i, `row ${i} ${'y'.repeat(i % 300)}`, i % 7 === 0 ? null : 'é😀\\']);
    rows.splice(2500, 0, [1, big, 2]);
    const enc = new CopyTextEncoder();
    for (const r of rows) enc.row(r);
    const chunks = enc.finish();
    expect(chunks.length).toBeGreaterThan(4);
    expect(Math.max(...chunks.filter((c) => !c.includes('xxxxxxxx')).map((c) => c.length))).toBeLessThanOrEqual(256 * 1024);
    // Buffer#equals: a deep comparison of 4 MB in the test runner takes seconds.
    expect(Buffer.concat(chunks).equals(reference(rows))).toBe(true);
    expect(enc.finish()).toEqual([]);
  });

  it('rejects a NUL in text, naming the message when there is one', () => {
    const m = new Message('{}');
    expect(() => new CopyTextEncoder().row([1, 'a\0b'], m)).toThrow(new RegExp(`message ${m.idHex} holds a NUL byte`));
    expect(() => new CopyTextEncoder().row(['a\0b'])).toThrow(/a value holds a NUL byte/);
  });
});
