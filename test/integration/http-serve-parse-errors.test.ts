import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, tempDir } from '../helpers/bridge.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found by a helper probing serve with raw sockets: requests Node's parser refuses (two
 * Content-Length headers that disagree, Content-Length beside Transfer-Encoding, a lower-case
 * method, a bad chunk size, headers past the limit) were answered a bare `400 Bad Request` (or
 * 431) with no body, where every other refusal names its problem. They are now answered with the
 * JSON error body the listener's own refusals have, naming what the parser found.
 */
const dir = tempDir();
const out = path.join(dir, 'out.ndjson');
let s: Served;

beforeAll(async () => {
  s = await serve(`file://${out}`);
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
});

function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    sock.on('data', (d: Buffer) => (got += d.toString('latin1')));
    sock.on('close', () => resolve(got));
    sock.on('error', () => {});
    sock.setTimeout(5000, () => sock.destroy());
    sock.write(text);
  });
}

describe('serve: requests the HTTP parser refuses', () => {
  const cases: [string, string, RegExp, RegExp][] = [
    ['two Content-Length headers that disagree', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', /^HTTP\/1\.1 400/, /Content-Length/i],
    ['Content-Length beside Transfer-Encoding', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', /^HTTP\/1\.1 400/, /Content-Length|Transfer-Encoding/i],
    ['a bad chunk size', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', /^HTTP\/1\.1 400/, /chunk/i],
    ['headers past the limit', `POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, /^HTTP\/1\.1 431/, /header/i],
  ];
  for (const [name, request, status, reason] of cases) {
    it(`${name}: the status, and a JSON body naming the problem`, async () => {
      const answer = await raw(s.port, request);
      expect(answer).toMatch(status);
      expect(answer).toMatch(/content-type: application\/json/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: string };
      expect(body.error).toMatch(reason);
    });
  }
  it('nothing of them was written', () => {
    expect(readWholeLines(out)).toEqual([]);
  });
});
