import { describe, expect, it } from 'vitest';
import { ChunkPool } from '../../src/connectors/sql/write/chunk-buffer.js';
import { CopyTextEncoder } from '../../src/connectors/postgres/copy-encoder.js';

/** Rows of a batch: long texts so one batch spans several 256 KB chunks. */
function batch(seed: number, rows: number): unknown[][] {
  return Array.from({ length: rows }, (_, i) => [seed * 1_000_000 + i, `${seed}:${i}:`.padEnd(300 + ((i * 7) % 50), String.fromCharCode(97 + ((seed + i) % 26))), i % 3 === 0 ? null : 'é\tx']);
}

function encode(rows: unknown[][], pool?: ChunkPool): Buffer[] {
  const enc = new CopyTextEncoder(pool);
  for (const r of rows) enc.row(r);
  return enc.finish();
}

describe('ChunkPool: encoders reuse the Buffers of committed batches', () => {
  it('a batch encoded into Buffers given back by an earlier batch has exactly its own bytes', () => {
    const pool = new ChunkPool(64);
    const first = encode(batch(1, 3000), pool);
    expect(first.length).toBeGreaterThan(2);
    pool.give(first);
    const rows = batch(2, 2000); // shorter: stale bytes of the first batch would show at the end
    const second = encode(rows, pool);
    expect(second.some((c) => first.some((f) => f.buffer === c.buffer))).toBe(true);
    expect(Buffer.concat(second).equals(Buffer.concat(encode(rows)))).toBe(true);
  });

  it('chunks given back twice are handed out once each', () => {
    const pool = new ChunkPool(64);
    const chunks = encode(batch(3, 3000), pool);
    pool.give(chunks);
    pool.give(chunks);
    const taken = Array.from({ length: chunks.length * 2 }, () => pool.take().buffer);
    expect(new Set(taken).size).toBe(taken.length);
  });

  it('keeps no Buffer of another size (a row over 256 KB, a COPY header) and at most `keep`', () => {
    const pool = new ChunkPool(2);
    const big = encode([[1, 'x'.repeat(300 * 1024)]], pool);
    pool.give([...big, Buffer.from('PGCOPY\n\xff\r\n\0')]);
    const kept = big.filter((c) => c.buffer.byteLength === 256 * 1024).map((c) => c.buffer);
    const next = [pool.take(), pool.take(), pool.take()].map((b) => b.buffer);
    expect(next.filter((b) => kept.includes(b)).length).toBe(Math.min(2, kept.length));
    expect(next.every((b) => b.byteLength === 256 * 1024)).toBe(true);
  });
});
