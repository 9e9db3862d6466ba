import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, tempDir, waitFor } from '../helpers/bridge.js';
import { rawSocket } from '../helpers/raw-socket.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found probing `serve` with bodies as strangers' clients send them. Text bodies were decoded as
 * UTF-8 whatever they were, with U+FFFD for what could not be read, and answered 204:
 * - a streamed NDJSON request whose TCP chunks cut a character in two ('é' is c3 a9) stored two
 *   U+FFFD for it: each chunk was decoded alone;
 * - a Latin-1 JSON body ('café' as 63 61 66 e9) was stored as 'caf\uFFFD';
 * - a body declared `text/plain; charset=ISO-8859-1` (Apache HttpClient's StringEntity default)
 *   was read as UTF-8.
 * Now a text body is read in its declared charset (UTF-8 without one), across chunks, and one that
 * is not in it is answered 400 with nothing written.
 */
const dir = tempDir();
let s: Served;
let streamed: Served;
const out = path.join(dir, 'single.ndjson');
const streamedOut = path.join(dir, 'streamed.ndjson');
const post = (url: string, body: Buffer | string, type: string) => request(url, { method: 'POST', body, headers: { 'content-type': type } });
const written = (file: string): unknown[] => {
  try {
    return lines(readFileSync(file, 'utf8')).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};

/** A chunked request over a raw socket, each part its own chunk, 150 ms apart (so they arrive apart); the status it was answered. */
async function chunked(port: number, type: string, parts: Buffer[]): Promise<string> {
  const sock = await rawSocket(port);
  sock.sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n`);
  for (const part of parts) {
    sock.sock.write(`${part.length.toString(16)}\r\n`);
    sock.sock.write(Buffer.concat([part, Buffer.from('\r\n')]));
    await new Promise((r) => setTimeout(r, 150));
  }
  sock.sock.write('0\r\n\r\n');
  await waitFor(async () => /HTTP\/1\.1 \d{3}/.test(sock.received()), 10_000, 20);
  sock.sock.destroy();
  return /HTTP\/1\.1 (\d{3})/.exec(sock.received())![1]!;
}

beforeAll(async () => {
  s = await serve(`file://${out}`);
  streamed = await serve(`file://${streamedOut}`, 'receive_streamable=true');
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
  expect((await streamed.stop()).exitCode).toBe(0);
});

describe('serve: text bodies in their charset', () => {
  it('a streamed NDJSON request whose chunks cut "é" between its two bytes lands as "é"', async () => {
    const first = Buffer.from('{"s":"caf\u00e9"}\n{"s":"d\u00e9j\u00e0 vu"}\n', 'utf8');
    const cut = first.indexOf(0xa9, first.indexOf(0xa9) + 1); // between c3 and a9 of the second 'é'
    expect(await chunked(streamed.port, 'application/x-ndjson', [first.subarray(0, cut), first.subarray(cut)])).toBe('204');
    await waitFor(async () => written(streamedOut).length >= 2, 10_000, 20);
    expect(written(streamedOut)).toEqual([{ s: 'caf\u00e9' }, { s: 'd\u00e9j\u00e0 vu' }]);
  });

  it('a JSON body in Latin-1 (not UTF-8) is answered 400 naming the bytes; nothing is written', async () => {
    const before = written(out).length;
    const r = await post(s.url, Buffer.concat([Buffer.from('{"s":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]), 'application/json');
    expect(r.statusCode).toBe(400);
    expect(await r.body.text()).toMatch(/not UTF-8.*e9/);
    const ok = await post(s.url, '{"s":"after"}', 'application/json');
    expect(ok.statusCode).toBe(204);
    await waitFor(async () => written(out).length > before, 10_000, 20);
    expect(written(out).slice(before)).toEqual([{ s: 'after' }]);
  });

  it('a body declared charset=ISO-8859-1 is read in it: "café" lands as "café"', async () => {
    const before = written(out).length;
    const r = await post(s.url, Buffer.from('{"s":"caf\u00e9"}', 'latin1'), 'application/json; charset=ISO-8859-1');
    expect(r.statusCode).toBe(204);
    await waitFor(async () => written(out).length > before, 10_000, 20);
    expect(written(out).slice(before)).toEqual([{ s: 'caf\u00e9' }]);
  });

  it('a charset the listener does not know is answered 415', async () => {
    const r = await post(s.url, '{"s":"x"}', 'application/json; charset=x-made-up');
    expect(r.statusCode).toBe(415);
    expect(await r.body.text()).toMatch(/charset x-made-up/);
  });

  it('a streamed request with a line that is not UTF-8 is answered 400', async () => {
    const r = await post(streamed.url, Buffer.concat([Buffer.from('{"s":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]), 'application/x-ndjson');
    expect(r.statusCode).toBe(400);
    expect(await r.body.text()).toMatch(/not UTF-8/);
  });

  it('a streamed request over max_body_bytes is answered 413 (it was never answered: the client waited until its own timeout)', async () => {
    const small = await serve(`file://${path.join(dir, 'small.ndjson')}`, 'receive_streamable=true&max_body_bytes=10');
    try {
      // Chunked (no Content-Length, so it is not refused before it is read).
      const body = Readable.from([Buffer.from('{"s":"cafe"}\n'), Buffer.from('{"s":"cafe"}\n')]);
      const r = await request(small.url, { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' }, headersTimeout: 10_000 });
      expect(r.statusCode).toBe(413);
      expect(await r.body.text()).toMatch(/max_body_bytes/);
    } finally {
      expect((await small.stop()).exitCode).toBe(0);
    }
  });

  it('an application/octet-stream body that is not UTF-8, into NDJSON, is answered 422: a line holds text, the bytes would have been replaced', async () => {
    const before = written(out).length;
    const r = await post(s.url, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x00, 0xff]), 'application/octet-stream');
    expect(r.statusCode).toBe(422);
    expect(await r.body.text()).toMatch(/payload is 6 bytes that are not UTF-8/);
    const ok = await post(s.url, Buffer.from('caf\u00e9', 'utf8'), 'application/octet-stream');
    expect(ok.statusCode).toBe(204);
    await waitFor(async () => written(out).length > before, 10_000, 20);
    expect(written(out).slice(before)).toEqual(['caf\u00e9']);
  });

  it('a streamed request declared charset=us-ascii holding UTF-8 is read as UTF-8 (TextDecoder would read the label as windows-1252: "cafÃ©")', async () => {
    const before = written(streamedOut).length;
    const r = await post(streamed.url, Buffer.from('{"s":"caf\u00e9"}\n', 'utf8'), 'application/x-ndjson; charset=us-ascii');
    expect(r.statusCode).toBe(204);
    await waitFor(async () => written(streamedOut).length > before, 10_000, 20);
    expect(written(streamedOut).slice(before)).toEqual([{ s: 'caf\u00e9' }]);
  });

  it('a streamed text/plain body (one message per chunk) whose chunks cut "é" is read across them, not refused', async () => {
    const before = written(streamedOut).length;
    const all = Buffer.from('d\u00e9j\u00e0', 'utf8');
    expect(await chunked(streamed.port, 'text/plain', [all.subarray(0, 2), all.subarray(2)])).toBe('204');
    await waitFor(async () => written(streamedOut).length >= before + 2, 10_000, 20);
    expect(written(streamedOut).slice(before)).toEqual(['d', '\u00e9j\u00e0']);
  });
});
