import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found probing serve with a client's NDJSON stream: `receive_streamable=true` writes each line as
 * it arrives, so when one line failed (not a JSON object for columns=auto: 422) the lines around it
 * were already committed, yet the answer was a bare 422 naming a message id the client never saw.
 * A client retrying the "failed" request wrote those rows twice; one giving up thought none had
 * landed. A body refused half-way (413 past max_body_bytes, 400 not in its charset) was answered
 * at once while the lines before it were still being written. The answer now comes after every
 * line that became a message is settled, and says how many were written and which failed.
 */
let pg: TestDb;
let s: Served;

beforeAll(async () => {
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS t_stream_partial');
  await pg.exec('CREATE TABLE t_stream_partial (a int PRIMARY KEY)');
  s = await serve(`${PG_URL}?table=t_stream_partial&columns=auto`, 'receive_streamable=true&max_body_bytes=40');
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
  await pg.exec('DROP TABLE IF EXISTS t_stream_partial');
  await pg.close();
});

const rows = async (): Promise<number[]> => (await pg.rows('SELECT a FROM t_stream_partial ORDER BY a')).map((r) => Number(r.a));

describe('serve receive_streamable: a request some of whose lines were written', () => {
  it('one line of four fails: the answer is its status, names the line, and says the other three were written', async () => {
    const r = await request(s.url, { method: 'POST', body: '{"a":1}\n{"a":2}\n[3]\n{"a":4}\n', headers: { 'content-type': 'application/x-ndjson' } });
    expect(r.statusCode).toBe(422);
    expect(r.headers['x-bridge-messages-written']).toBe('3');
    const body = (await r.body.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ items: 4, written: 3, failed_items: [3] });
    expect(String(body.error)).toMatch(/^item 3 of 4: .*not a JSON object/);
    expect(await rows()).toEqual([1, 2, 4]);
  });

  it('a body refused at max_body_bytes half-way is answered 413 after the lines before it are written, and says so', async () => {
    await pg.exec('TRUNCATE t_stream_partial');
    // Chunked (no Content-Length): the first two lines are items before the third chunk crosses the 40-byte limit.
    const chunks = ['{"a":11}\n{"a":12}\n', '{"a":13}\n', '{"a":14}\n{"a":15}\n{"a":16}\n'].map((c) => Buffer.from(c));
    async function* paced(): AsyncGenerator<Buffer> {
      for (const c of chunks) {
        yield c;
        await new Promise((r) => setTimeout(r, 150));
      }
    }
    const r = await request(s.url, { method: 'POST', body: Readable.from(paced()), headers: { 'content-type': 'application/x-ndjson' }, headersTimeout: 10_000 });
    expect(r.statusCode).toBe(413);
    const body = (await r.body.json()) as Record<string, unknown>;
    const written = Number(r.headers['x-bridge-messages-written']);
    expect(body.written).toBe(written);
    expect(String(body.error)).toMatch(/max_body_bytes/);
    // What the answer says was written is what the table holds, at the moment of the answer.
    const now = await rows();
    expect(now.length).toBe(written);
    expect(now).toEqual([11, 12, 13].slice(0, written));
    expect(written).toBeGreaterThanOrEqual(2);
  });
});
