import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyOutReader } from '../../src/connectors/postgres/copy-out-reader.js';
import { decodeTuple } from '../../src/connectors/postgres/copy-out.js';
import { ChunkPool } from '../../src/connectors/sql/write/chunk-buffer.js';
import { PG_URL } from '../helpers/databases.js';

/**
 * COPY TO read off the socket by bridge (one row per CopyData message): what the server sends is
 * what comes out, batch by batch, whatever the sizes of rows and socket reads, and the connection
 * goes back to pg in a state where the next query works, after an end, an empty result or an error.
 */
let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
});
afterAll(() => client.end());

async function readAll(sql: string, format: 'text' | 'binary', max: number): Promise<{ batches: number[]; bytes: Buffer; lasts: Buffer[] }> {
  const reader = new CopyOutReader(`COPY (${sql}) TO STDOUT${format === 'binary' ? ' (FORMAT binary)' : ''}`, format, new ChunkPool(4));
  void client.query(reader as never);
  const batches: number[] = [];
  const parts: Buffer[] = [];
  const lasts: Buffer[] = [];
  for (let got = await reader.next(max); got; got = await reader.next(max)) {
    batches.push(got.count);
    parts.push(Buffer.concat(got.chunks));
    lasts.push(got.last);
  }
  await reader.finished;
  return { batches, bytes: Buffer.concat(parts), lasts };
}


describe('COPY TO read by message', () => {
  it('batches of whole rows, the last row of each alone; text lines equal the server\'s', async () => {
    const sql = `SELECT i, md5(i::text) AS h, CASE WHEN i % 7 = 0 THEN NULL ELSE E'tab\\there' END AS t FROM generate_series(1, 10000) i`;
    const { batches, bytes, lasts } = await readAll(sql, 'text', 1000);
    expect(batches).toEqual(Array(10).fill(1000));
    const lines = bytes.toString('utf8').split('\n');
    expect(lines).toHaveLength(10001);
    expect(lines[6]).toBe('7\t8f14e45fceea167a5a36dedd4bea2543\t\\N');
    expect(lines[0]).toBe('1\tc4ca4238a0b923820dcc509a6f75849b\ttab\\there');
    expect(lasts[9]!.toString()).toBe('10000\tb7a782741f667201b54880c925faec4b\ttab\\there\n');
    expect((await client.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
  });

  it('binary: the header and trailer are not rows; a row is decoded from the last alone', async () => {
    const { batches, bytes, lasts } = await readAll(`SELECT i::int8, i::text FROM generate_series(1, 2500) i`, 'binary', 1000);
    expect(batches).toEqual([1000, 1000, 500]);
    expect(bytes.subarray(0, 2).readInt16BE(0)).toBe(2); // a tuple's field count, not the PGCOPY signature
    expect(decodeTuple(lasts[2]!, 0, [{ dbType: 'bigint' }, { dbType: 'text' }])).toEqual(['2500', '2500']);
    expect(decodeTuple(lasts[0]!, 0, [{ dbType: 'bigint' }, { dbType: 'text' }])).toEqual(['1000', '1000']);
  });

  it.each(['text', 'binary'] as const)('an empty result (%s: the binary header and trailer in one message) is no rows, and the connection goes on', async (format) => {
    const { batches, bytes } = await readAll('SELECT 1 WHERE false', format, 100);
    expect(batches).toEqual([]);
    expect(bytes.length).toBe(0);
    expect((await client.query('SELECT 2 AS ok')).rows).toEqual([{ ok: 2 }]);
  });

  it('rows larger than a socket read and than a pool Buffer (700 KB) arrive whole', async () => {
    const sql = `SELECT i, repeat(md5(i::text), 22000 * i) AS big FROM generate_series(1, 3) i`;
    const { batches, bytes } = await readAll(sql, 'text', 2);
    expect(batches).toEqual([2, 1]);
    const want = (await client.query({ text: `SELECT md5(string_agg(i || E'\\t' || big || E'\\n', '' ORDER BY i)) AS m FROM (${sql}) x` })).rows[0].m as string;
    expect(createHash('md5').update(bytes).digest('hex')).toBe(want);
  });

  it('an error part-way (division by zero at row 5000) fails the read with the server\'s message; the next query works', async () => {
    const reader = new CopyOutReader(`COPY (SELECT i, 1 / (i - 5000) FROM generate_series(1, 10000) i) TO STDOUT`, 'text', new ChunkPool(4));
    void client.query(reader as never);
    let rows = 0;
    const read = async (): Promise<void> => {
      for (let got = await reader.next(1000); got; got = await reader.next(1000)) rows += got.count;
    };
    await expect(read()).rejects.toThrow(/division by zero/);
    await expect(reader.finished).rejects.toThrow(/division by zero/);
    expect(rows).toBeLessThan(5000);
    expect((await client.query('SELECT 3 AS ok')).rows).toEqual([{ ok: 3 }]);
  });
});
