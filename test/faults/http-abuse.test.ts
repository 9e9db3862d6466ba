import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';
import { serve, type Served } from '../helpers/serve.js';
import { record } from './report.js';

/** Issue 7, bad input over HTTP: malformed requests get the statuses of decisions §7 and the server keeps serving. */
let pg: TestDb;
let s: Served;
beforeAll(async () => {
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS t_abuse; CREATE TABLE t_abuse (id int PRIMARY KEY)');
  s = await serve(`${PG_URL}?table=t_abuse&columns=auto&key=id`, 'max_body_bytes=4096');
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
  await pg.close();
});

/** Sends raw bytes and returns what came back before the server closed or `ms` passed. */
function raw(data: string | Buffer, ms = 1500): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(s.port, '127.0.0.1');
    let got = '';
    sock.on('data', (d) => (got += d.toString()));
    sock.on('close', () => resolve(got));
    sock.on('error', () => resolve(got));
    sock.write(data);
    setTimeout(() => {
      sock.destroy();
      resolve(got);
    }, ms);
  });
}

let next = 1;
async function stillServing(): Promise<void> {
  const id = next++;
  const r = await request(s.url, { method: 'POST', body: JSON.stringify({ id }), headers: { 'content-type': 'application/json' } });
  expect(r.statusCode).toBe(204);
  await r.body.text();
}

describe('malformed requests', () => {
  const cases: [string, string | Buffer, RegExp][] = [
    ['a body shorter than Content-Length, then a hang-up', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"id":', /^$|HTTP\/1\.1 (400|408)/],
    ['a body longer than Content-Length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n{"id":1}garbage', /HTTP\/1\.1 (204|400|422)/],
    ['broken chunked encoding', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n', /HTTP\/1\.1 400/],
    ['an invalid request line', 'GARBAGE\r\n\r\n', /HTTP\/1\.1 400/],
    ['a corrupt zstd body', `POST / HTTP/1.1\r\nHost: x\r\nContent-Encoding: zstd\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot zstd!`, /HTTP\/1\.1 400/],
    ['an unknown Content-Encoding', `POST / HTTP/1.1\r\nHost: x\r\nContent-Encoding: br2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, /HTTP\/1\.1 415/],
    ['a body over max_body_bytes without Content-Length', `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n1400\r\n${'x'.repeat(0x1400)}\r\n0\r\n\r\n`, /HTTP\/1\.1 413/],
    ['not JSON for a columns=auto sink', `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`, /HTTP\/1\.1 422/],
  ];
  for (const [name, data, want] of cases)
    it(name, async () => {
      const got = await raw(data);
      expect(got).toMatch(want);
      await stillServing();
      record({ scenario: `http: ${name}`, runs: 1, lost: 0, duplicates: 0, outcome: `${/HTTP\/1\.1 (\d+)/.exec(got)?.[1] ?? 'closed'}; next request served` });
    });
});

describe('slow-loris', () => {
  it('200 connections dribbling headers do not stop others, and are closed after the header timeout', async () => {
    const slow: Socket[] = [];
    const closed = { n: 0 };
    for (let i = 0; i < 200; i++) {
      const sock = connect(s.port, '127.0.0.1');
      sock.on('error', () => {});
      sock.on('close', () => closed.n++);
      sock.write('POST / HTTP/1.1\r\nHost: x\r\n');
      slow.push(sock);
    }
    const drip = setInterval(() => {
      for (const sock of slow) if (!sock.destroyed) sock.write('X-Slow: 1\r\n');
    }, 1000);
    try {
      const t0 = Date.now();
      await stillServing();
      expect(Date.now() - t0).toBeLessThan(2000);
      await new Promise((r) => setTimeout(r, 13_000));
      expect(closed.n).toBe(200);
      await stillServing();
      record({ scenario: 'http: slow-loris, 200 connections dribbling headers', runs: 1, lost: 0, duplicates: 0, outcome: 'others served at once; all 200 closed after the 10 s header timeout' });
    } finally {
      clearInterval(drip);
      for (const sock of slow) sock.destroy();
    }
  });
});
