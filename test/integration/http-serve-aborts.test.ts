import http from 'node:http';
import http2 from 'node:http2';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, frame, FRAME, PREFACE, postHeaders, rstStream } from '../helpers/h2-frames.js';
import { lockedSqlite } from '../helpers/locked-sqlite.js';
import { serve } from '../helpers/serve.js';

/** Reported defects of `bridge serve` around requests whose body never ended, seen by real clients on loopback. */
const ndjsonSink = (): { url: string; lines: () => string[] } => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bridge-serve-aborts-')), 'out.ndjson');
  return { url: `file://${file}`, lines: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []) };
};

const { NGHTTP2_CANCEL } = http2.constants;

/** Opens `count` h2c streams that each send `body` without END_STREAM, then cancels them (RST_STREAM CANCEL). */
async function cancelledStreams(url: string, count: number, body: string, headers: http2.OutgoingHttpHeaders = {}): Promise<void> {
  const session = http2.connect(url);
  await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const stream = session.request({ ':method': 'POST', ':path': '/', 'content-type': 'application/json', ...headers }, { endStream: false });
      stream.on('error', () => {});
      await new Promise<void>((resolve) => stream.write(body.replaceAll('$i', String(i)), () => resolve()));
      // The server has the bytes (they parse as JSON) before it learns the client gave up.
      await new Promise((r) => setTimeout(r, 50));
      await new Promise<void>((resolve) => stream.close(NGHTTP2_CANCEL, () => resolve()));
    }),
  );
  session.close();
}

/** One whole h2c request; resolves with its status. */
async function h2Post(url: string, body: string, headers: http2.OutgoingHttpHeaders = {}): Promise<number> {
  const session = http2.connect(url);
  try {
    return await new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': '/', 'content-type': 'application/json', ...headers });
      stream.once('response', (h) => resolve(Number(h[':status'])));
      stream.once('error', reject);
      stream.resume();
      stream.end(body);
    });
  } finally {
    session.close();
  }
}

/** 20 h2c streams on one connection, each HEADERS + a whole-looking JSON DATA frame without END_STREAM, then RST_STREAM(CANCEL). */
async function resetWithoutEndStream(port: number, together: boolean): Promise<void> {
  const sock = await connect(port);
  sock.on('data', () => {});
  sock.on('error', () => {});
  sock.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
  for (let i = 0; i < 20; i++) {
    const id = 1 + 2 * i;
    const opened = Buffer.concat([postHeaders(id, `127.0.0.1:${port}`), frame(FRAME.DATA, 0, id, Buffer.from(`{"cancelled":${i}}`))]);
    if (together) sock.write(Buffer.concat([opened, rstStream(id, NGHTTP2_CANCEL)]));
    else {
      sock.write(opened);
      await new Promise((r) => setTimeout(r, 20));
      sock.write(rstStream(id, NGHTTP2_CANCEL));
    }
  }
  await new Promise((r) => setTimeout(r, 200));
  sock.destroy();
}

describe('requests whose body did not end are never delivered', () => {
  it('h2c: 2 x 20 streams reset (RST_STREAM CANCEL) after a complete-looking JSON DATA frame without END_STREAM land 0 rows; a whole request afterwards lands', async () => {
    const sink = ndjsonSink();
    const s = await serve(sink.url);
    try {
      await resetWithoutEndStream(s.port, true);
      await resetWithoutEndStream(s.port, false);
      expect(await h2Post(s.url, '{"whole":true}')).toBe(204);
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(sink.lines()).toEqual(['{"whole":true}']);
  });

  it("h2c: 20 streams cancelled with Node's stream.close(NGHTTP2_CANCEL) (END_STREAM, then RST_STREAM) while the sink is busy are taken back: 0 of them land", async () => {
    const sink = lockedSqlite();
    const s = await serve(sink.url);
    try {
      sink.lock();
      // Writes in flight and batches read ahead take what arrives first: these fill them, so the
      // cancelled requests wait in the queue.
      const ahead: Promise<number>[] = [];
      for (let i = 0; i < 4; i++) {
        ahead.push(h2Post(s.url, `{"n":${i},"tag":"ahead"}`));
        await new Promise((r) => setTimeout(r, 200));
      }
      await cancelledStreams(s.url, 20, '{"n":$i,"tag":"cancelled"}');
      // The resets reach the server a moment after the client sent them.
      await new Promise((r) => setTimeout(r, 300));
      sink.unlock();
      expect(await Promise.all(ahead)).toEqual([204, 204, 204, 204]);
      expect(await h2Post(s.url, '{"n":3,"tag":"whole"}')).toBe(204);
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(sink.rows().map((r) => r.tag)).toEqual(['ahead', 'ahead', 'ahead', 'ahead', 'whole']);
    sink.close();
  });

  it('HTTP/1.1: 20 clients that close their connection while their whole requests wait behind a busy sink are taken back: 0 of them land, the next request lands', async () => {
    const sink = lockedSqlite();
    const s = await serve(sink.url);
    const post = (body: string, agent: http.Agent | false = false): { status: Promise<number>; req: http.ClientRequest } => {
      const req = http.request(`${s.url}/`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } });
      const status = new Promise<number>((resolve, reject) => {
        req.once('response', (r) => (r.resume(), resolve(r.statusCode!)));
        req.once('error', reject);
      });
      req.end(body);
      return { status, req };
    };
    try {
      sink.lock();
      const ahead: Promise<number>[] = [];
      for (let i = 0; i < 4; i++) {
        ahead.push(post(`{"n":${i},"tag":"ahead"}`).status);
        await new Promise((r) => setTimeout(r, 200));
      }
      const leaving = Array.from({ length: 20 }, (_, i) => post(`{"n":${i},"tag":"left"}`));
      for (const l of leaving) l.status.catch(() => {});
      // The bodies are in the server's queue before the clients give up.
      await new Promise((r) => setTimeout(r, 300));
      for (const l of leaving) l.req.destroy();
      await new Promise((r) => setTimeout(r, 300));
      sink.unlock();
      expect(await Promise.all(ahead)).toEqual([204, 204, 204, 204]);
      expect(await post('{"n":5,"tag":"whole"}').status).toBe(204);
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(sink.rows().map((r) => r.tag)).toEqual(['ahead', 'ahead', 'ahead', 'ahead', 'whole']);
    sink.close();
  });

  it('h2c with receive_streamable: of streams reset before END_STREAM, the lines that ended are written, the unterminated last item is not', async () => {
    const sink = ndjsonSink();
    const s = await serve(sink.url, 'receive_streamable=true');
    try {
      const sock = await connect(s.port);
      sock.on('data', () => {});
      sock.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
      for (let i = 0; i < 5; i++) {
        const id = 1 + 2 * i;
        sock.write(Buffer.concat([postHeaders(id, `127.0.0.1:${s.port}`, 'application/x-ndjson'), frame(FRAME.DATA, 0, id, Buffer.from(`{"line":${i}}\n{"tail":${i}}`))]));
        await new Promise((r) => setTimeout(r, 20));
        sock.write(rstStream(id, NGHTTP2_CANCEL));
      }
      await new Promise((r) => setTimeout(r, 200));
      sock.destroy();
      expect(await h2Post(s.url, '{"whole":true}', { 'content-type': 'application/x-ndjson' })).toBe(204);
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    const lines = sink.lines();
    expect(lines.filter((l) => l.includes('tail'))).toEqual([]);
    expect(lines.filter((l) => l.includes('line')).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `{"line":${i}}`));
    expect(lines).toContain('{"whole":true}');
  });
});
