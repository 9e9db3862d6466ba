import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/object-stores.js';
import { rawSocket } from '../helpers/raw-socket.js';
import { serve } from '../helpers/serve.js';

/** What the listener puts on the wire before reading a body, and which answers it counts. */
const ndjsonSink = (): { url: string; lines: () => string[] } => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bridge-serve-answers-')), 'out.ndjson');
  return { url: `file://${file}`, lines: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []) };
};

const head = (length: number): string => `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

describe('answers before the body, and answers the server gives by itself', () => {
  it('Expect: 100-continue with a Content-Length over max_body_bytes is answered 413 at once, never 100 Continue; within it, 100 Continue then 204', async () => {
    const sink = ndjsonSink();
    const s = await serve(sink.url, 'max_body_bytes=1000');
    try {
      const big = await rawSocket(s.port, head(5000));
      await big.closedWithin(1000);
      expect(big.received()).toMatch(/^HTTP\/1\.1 413 /);
      expect(big.received()).not.toMatch(/100 Continue/);
      big.sock.destroy();
      const body = '{"fits":true}';
      const small = await rawSocket(s.port, head(body.length));
      await small.closedWithin(500);
      expect(small.received()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
      small.sock.write(body);
      await small.closedWithin(500);
      expect(small.received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 204 /);
      small.sock.destroy();
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(sink.lines()).toEqual(['{"fits":true}']);
  });

  it('408s the server sends for requests whose headers never came are in bridge_http_requests_total and the progress line', async () => {
    const metrics = await freePort();
    const s = await serve(ndjsonSink().url, 'headers_timeout_ms=500', ['--metrics', `127.0.0.1:${metrics}`]);
    let stderr = '';
    try {
      const slow = await Promise.all(Array.from({ length: 3 }, () => rawSocket(s.port, 'POST / HTTP/1.1\r\nHost: x\r\n')));
      for (const c of slow) await c.closedWithin(3000);
      for (const c of slow) expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
      const text = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
      expect(text).toMatch(/bridge_http_requests_total\{[^}]*status="408"[^}]*\} 3/);
    } finally {
      const r = await s.stop();
      expect(r.exitCode).toBe(0);
      stderr = r.stderr;
    }
    const summary = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { requests?: { statuses: Record<string, number> } }).findLast((o) => o.requests);
    expect(summary?.requests?.statuses['408']).toBe(3);
  });
});
