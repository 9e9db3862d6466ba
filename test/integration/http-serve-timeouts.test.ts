import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { frame, FRAME, PREFACE } from '../helpers/h2-frames.js';
import { rawSocket } from '../helpers/raw-socket.js';
import { serve } from '../helpers/serve.js';

/** Connections that send nothing, or stop, are closed after a bounded time on every protocol. */
const ndjsonSink = (): { url: string; lines: () => string[] } => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bridge-serve-timeouts-')), 'out.ndjson');
  return { url: `file://${file}`, lines: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []) };
};

const SILENT = {
  nothing: undefined,
  'a partial HTTP/2 preface': PREFACE.subarray(0, 14),
  'a preface and SETTINGS': Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]),
  'half an HTTP/1.1 request line': 'POST /ingest HT',
} as const;
type Silence = keyof typeof SILENT;

const request = (body: string): string => `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe('silent and idle connections are closed after a bounded time', () => {
  const cases: [string, Silence[]][] = [
    ['auto', ['nothing', 'a partial HTTP/2 preface', 'a preface and SETTINGS', 'half an HTTP/1.1 request line']],
    ['http1_only', ['nothing', 'half an HTTP/1.1 request line']],
    ['http2_only', ['nothing', 'a partial HTTP/2 preface', 'a preface and SETTINGS']],
  ];
  for (const [protocol, silences] of cases)
    it(`${protocol}: 48 sockets sending ${silences.join(' / ')} and then nothing are closed within headers_timeout_ms (1 s) + 1.5 s; a request afterwards lands`, async () => {
      const sink = ndjsonSink();
      const s = await serve(sink.url, `server_protocol=${protocol}&headers_timeout_ms=1000`);
      try {
        const per = Math.floor(48 / silences.length);
        const sockets = await Promise.all(silences.flatMap((k) => Array.from({ length: per }, () => rawSocket(s.port, SILENT[k]))));
        const closedAfter = await Promise.all(sockets.map((c) => c.closedWithin(2500)));
        for (const c of sockets) c.sock.destroy();
        expect(closedAfter.filter((ms) => ms === undefined).length).toBe(0);
        // Closed for being silent, not at once.
        expect(Math.min(...(closedAfter as number[]))).toBeGreaterThan(900);
        if (protocol !== 'http2_only') {
          const c = await rawSocket(s.port, request('{"after":true}'));
          await c.closedWithin(500);
          expect(c.received()).toMatch(/^HTTP\/1\.1 204/);
          c.sock.destroy();
        }
      } finally {
        expect((await s.stop()).exitCode).toBe(0);
      }
      if (protocol !== 'http2_only') expect(sink.lines()).toEqual(['{"after":true}']);
    });

  it('a keep-alive connection idle for 6 s (past Node\'s fixed 5 s) is still open and serves the next request', async () => {
    const sink = ndjsonSink();
    const s = await serve(sink.url);
    try {
      const c = await rawSocket(s.port, request('{"n":1}'));
      await new Promise((r) => setTimeout(r, 6000));
      expect(c.received()).toMatch(/^HTTP\/1\.1 204/);
      c.sock.write(request('{"n":2}'));
      expect(await c.closedWithin(500)).toBeUndefined();
      expect(c.received().match(/HTTP\/1\.1 204/g)).toHaveLength(2);
      c.sock.destroy();
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(sink.lines()).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('keep_alive_timeout_ms=1000: an idle HTTP/1.1 connection and an idle HTTP/2 session (after a stream) are closed after about 1 s', async () => {
    const s = await serve(ndjsonSink().url, 'keep_alive_timeout_ms=1000');
    try {
      const h1 = await rawSocket(s.port, request('{"n":1}'));
      const { connect } = await import('node:http2');
      const session = connect(s.url);
      const opened = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        const st = session.request({ ':method': 'POST', ':path': '/', 'content-type': 'application/json' });
        st.once('response', (h) => resolve(Number(h[':status'])));
        st.once('error', reject);
        st.resume();
        st.end('{"n":2}');
      });
      expect(status).toBe(204);
      const goaway = new Promise<number>((resolve) => session.once('goaway', () => resolve(performance.now() - opened)));
      session.on('error', () => {});
      const [h1Closed, h2Goaway] = await Promise.all([h1.closedWithin(3000), Promise.race([goaway, new Promise<undefined>((r) => setTimeout(r, 3000))])]);
      expect(h1Closed).toBeGreaterThan(900);
      expect(h1Closed).toBeLessThan(2500);
      expect(h2Goaway).toBeGreaterThan(900);
      expect(h2Goaway).toBeLessThan(2500);
      session.destroy();
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
  });
});
