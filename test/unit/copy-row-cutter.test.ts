import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RowCutter } from '../../src/connectors/postgres/copy-row-cutter.js';
import { decodeTuple } from '../../src/connectors/postgres/copy-out.js';

/** A binary COPY tuple of int8 key and text fields (null as length -1). */
function tuple(key: bigint, texts: (string | null)[]): Buffer {
  const parts = [Buffer.alloc(2), Buffer.alloc(12)];
  parts[0]!.writeInt16BE(1 + texts.length);
  parts[1]!.writeInt32BE(8);
  parts[1]!.writeBigInt64BE(key, 4);
  for (const t of texts) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(t === null ? -1 : Buffer.byteLength(t));
    parts.push(len);
    if (t !== null) parts.push(Buffer.from(t));
  }
  return Buffer.concat(parts);
}

const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(4), Buffer.from([0, 0, 0, 3, 1, 2, 3])]);
const TRAILER = Buffer.from([0xff, 0xff]);

/** Splits `bytes` at the given cut points (as chunks arrive from a socket). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}

/** Feeds chunks one by one, taking a batch whenever `max` rows are there, and the rest at the end. */
function cutAll(format: 'text' | 'binary', chunks: Buffer[], max: number) {
  const cutter = new RowCutter(format);
  const batches = [];
  for (const c of chunks) {
    cutter.push(c);
    while (cutter.scan(max) === max) batches.push(cutter.take()!);
  }
  cutter.scan(max);
  const end = cutter.take();
  if (end) batches.push(end);
  return { batches, leftover: cutter.onlyTrailer() };
}

const text = fc.option(fc.string({ unit: 'binary', maxLength: 40 }), { nil: null });

describe('COPY TO rows cut into batches without joining the chunks', () => {
  it('binary: every tuple once, in order, wherever the chunks split them (seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 4 }), { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 12 }), fc.integer({ min: 1, max: 7 }), (rows, cuts, max) => {
        const tuples = rows.map((r, i) => tuple(BigInt(i) * 1000003n - 7n, r));
        const body = Buffer.concat(tuples);
        const { batches, leftover } = cutAll('binary', split(Buffer.concat([HEADER, body, TRAILER]), cuts), max);
        expect(leftover).toBe(true);
        expect(Buffer.concat(batches.flatMap((b) => b.chunks))).toEqual(body);
        expect(batches.map((b) => b.count)).toEqual(batches.map((_, i) => Math.min(max, rows.length - i * max)));
        let seen = 0;
        for (const b of batches) {
          seen += b.count;
          const tail = Buffer.concat(b.chunks.slice(b.lastChunk));
          expect(decodeTuple(tail, b.lastAt, [{ dbType: 'bigint' }])[0]).toBe(String(BigInt(seen - 1) * 1000003n - 7n));
        }
      }),
      { seed: 15, numRuns: 400 },
    );
  });

  it('text: every line once, in order, wherever the chunks split them (seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/\n/g, '\\n')), { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 12 }), fc.integer({ min: 1, max: 7 }), (lines, cuts, max) => {
        const body = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const { batches, leftover } = cutAll('text', split(body, cuts), max);
        expect(leftover).toBe(true);
        expect(Buffer.concat(batches.flatMap((b) => b.chunks)).toString()).toBe(body.toString());
        expect(batches.reduce((n, b) => n + b.count, 0)).toBe(lines.length);
        expect(batches.every((b, i) => b.count === (i < batches.length - 1 ? max : lines.length - i * max))).toBe(true);
      }),
      { seed: 15, numRuns: 400 },
    );
  });

  it('a stream that ends inside a row is not taken for a whole one', () => {
    const body = Buffer.concat([HEADER, tuple(1n, ['a']), tuple(2n, ['bc']).subarray(0, 9)]);
    const { batches, leftover } = cutAll('binary', split(body, [5, 25, 30]), 10);
    expect(batches.map((b) => b.count)).toEqual([1]);
    expect(leftover).toBe(false);
    expect(cutAll('text', [Buffer.from('1\ta\n2\tb')], 10).leftover).toBe(false);
  });

  it('a value of several MB spans many chunks and still ends its row', () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const body = Buffer.concat([tuple(1n, [big]), tuple(2n, [null, 'y'])]);
    const chunks = split(Buffer.concat([HEADER, body, TRAILER]), Array.from({ length: 60 }, (_, i) => i * 65536 + 7));
    const { batches } = cutAll('binary', chunks, 1);
    expect(batches.map((b) => b.count)).toEqual([1, 1]);
    expect(Buffer.concat(batches[0]!.chunks).length).toBe(tuple(1n, [big]).length);
  });
});
