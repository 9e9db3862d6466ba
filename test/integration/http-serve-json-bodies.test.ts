import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, tempDir, waitFor } from '../helpers/bridge.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found probing serve with clients' bodies: a body declared `application/json` that was not JSON
 * (`{"a":` cut short by a client's bug) was taken as text and written to an NDJSON file as the
 * JSON string "{\"a\":", answered 204; a line of an NDJSON stream the same. A JSON body starting
 * with a byte order mark (what .NET's and PowerShell's UTF-8 encoders write) became the string
 * "\uFEFF{…}" as one request, while the same bytes streamed lost the mark (TextDecoder drops it):
 * one body, two values. A body declared JSON must now be JSON (400 otherwise, nothing written),
 * and a leading UTF-8 byte order mark is the encoding's signature, not text, on both paths.
 */
const dir = tempDir();
const single = path.join(dir, 'single.ndjson');
const streamed = path.join(dir, 'streamed.ndjson');
let s: Served;
let st: Served;

beforeAll(async () => {
  s = await serve(`file://${single}`);
  st = await serve(`file://${streamed}`, 'receive_streamable=true');
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
  expect((await st.stop()).exitCode).toBe(0);
});

const post = (url: string, body: string | Buffer, type: string) => request(url, { method: 'POST', body, headers: { 'content-type': type } });
const linesOf = readWholeLines;

describe('serve: bodies declared JSON', () => {
  it('a body declared application/json that is not JSON is answered 400 and nothing is written', async () => {
    const r = await post(s.url, '{"a":', 'application/json');
    expect(r.statusCode).toBe(400);
    expect(await r.body.text()).toMatch(/declared application\/json but is not JSON/);
    const ok = await post(s.url, '{"a":1}', 'application/json; charset=utf-8');
    expect(ok.statusCode).toBe(204);
    await waitFor(async () => linesOf(single).length >= 1, 10_000, 20);
    expect(linesOf(single)).toEqual([{ a: 1 }]);
  });

  it('a JSON body with a UTF-8 byte order mark lands as its document, one request or streamed', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const one = await post(s.url, Buffer.concat([bom, Buffer.from('{"b":2}')]), 'application/problem+json');
    expect(one.statusCode).toBe(204);
    const text = await post(s.url, Buffer.concat([bom, Buffer.from('hello')]), 'text/plain');
    expect(text.statusCode).toBe(204);
    const many = await post(st.url, Buffer.concat([bom, Buffer.from('{"b":2}\n')]), 'application/x-ndjson');
    expect(many.statusCode).toBe(204);
    await waitFor(async () => linesOf(single).length >= 3 && linesOf(streamed).length >= 1, 10_000, 20);
    expect(linesOf(single).slice(1)).toEqual([{ b: 2 }, 'hello']);
    expect(linesOf(streamed)).toEqual([{ b: 2 }]);
  });

  it('a line of an NDJSON stream that is not JSON stops the request with 400 naming it; the line before it was written, and the answer says so', async () => {
    const before = linesOf(streamed).length;
    const r = await post(st.url, '{"c":1}\n{"c":\n{"c":3}\n', 'application/x-ndjson');
    expect(r.statusCode).toBe(400);
    expect(r.headers['x-bridge-messages-written']).toBe('1');
    expect(String(((await r.body.json()) as { error: string }).error)).toMatch(/line 2 .*not JSON/);
    expect(linesOf(streamed).slice(before)).toEqual([{ c: 1 }]);
  });
});
