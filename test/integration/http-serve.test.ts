import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';
import { makeCerts, type Certs } from '../helpers/certs.js';
import { serve, type Served } from '../helpers/serve.js';

/** decisions §7: every status of the listener, produced by real requests on loopback. */
let pg: TestDb;
let certs: Certs;
beforeAll(async () => {
  pg = await postgres();
  certs = makeCerts();
  await pg.exec('DROP TABLE IF EXISTS t_http; CREATE TABLE t_http (id int PRIMARY KEY, name text NOT NULL)');
  await pg.exec("DROP TABLE IF EXISTS t_users_http; CREATE TABLE t_users_http (id int PRIMARY KEY, name text); INSERT INTO t_users_http VALUES (1, 'ann'), (2, 'bob')");
  await pg.exec('DROP TABLE IF EXISTS t_http_q');
});
afterAll(async () => {
  await pg.close();
});

const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
const json = async (r: Awaited<ReturnType<typeof request>>) => JSON.parse(await r.body.text()) as Record<string, unknown>;
const insertSink = `${PG_URL}?table=t_http&columns=auto`;
const lookupSink = `${PG_URL}?table=t_users_http&lookup_query=${encodeURIComponent('SELECT * FROM t_users_http WHERE id IN (${payload:id})')}`;

describe('HTTP listener statuses (decisions §7)', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(insertSink, `path=/ingest&method=POST&basic_auth=${encodeURIComponent('["ingest","s3cret-pass"]')}&max_body_bytes=2048&custom_headers=${encodeURIComponent('{"x-served-by":"bridge"}')}`);
  });
  afterAll(async () => {
    expect((await s.stop()).exitCode).toBe(0);
  });
  const auth = { authorization: `Basic ${Buffer.from('ingest:s3cret-pass').toString('base64')}` };

  it('204 when the sink accepted; the row is there', async () => {
    const r = await post(`${s.url}/ingest`, '{"id":1,"name":"a"}', { ...auth, 'message-id': '0190a3f2-7e3b-7c2a-8f00-0000000000ab' });
    expect(r.statusCode).toBe(204);
    expect(r.headers['x-served-by']).toBe('bridge');
    expect(r.headers['message-id']).toBe('0190a3f27e3b7c2a8f000000000000ab');
    await r.body.text();
    expect(await pg.rows('SELECT id, name FROM t_http')).toEqual([{ id: 1, name: 'a' }]);
  });

  it('404 for another path, 405 with Allow for another method', async () => {
    const r404 = await post(`${s.url}/other`, '{}', auth);
    expect(r404.statusCode).toBe(404);
    expect(await json(r404)).toEqual({ error: 'no route for /other', message_id: null });
    const r405 = await request(`${s.url}/ingest`, { method: 'GET', headers: auth });
    expect(r405.statusCode).toBe(405);
    expect(r405.headers.allow).toBe('POST');
    expect((await json(r405)).error).toMatch(/method GET not allowed/);
  });

  it('401 with a Basic challenge for missing or wrong credentials', async () => {
    for (const h of [{}, { authorization: `Basic ${Buffer.from('ingest:wrong').toString('base64')}` }]) {
      const r = await post(`${s.url}/ingest`, '{}', h);
      expect(r.statusCode).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Basic realm="bridge"/);
      expect((await json(r)).error).toBe('authentication required');
    }
  });

  it('400 for a body that cannot be decompressed, 413 over max_body_bytes', async () => {
    const bad = await post(`${s.url}/ingest`, Buffer.from('not gzip at all'), { ...auth, 'content-encoding': 'gzip' });
    expect(bad.statusCode).toBe(400);
    expect((await json(bad)).error).toMatch(/the body cannot be read/);
    // A coding the listener does not know is the client's choice to change (RFC 9110 §15.5.16), not a broken body.
    const br = await post(`${s.url}/ingest`, Buffer.from('{}'), { ...auth, 'content-encoding': 'br' });
    expect(br.statusCode).toBe(415);
    expect(br.headers['accept-encoding']).toBe('gzip, zstd, lz4');
    expect((await json(br)).error).toMatch(/Content-Encoding br is not one this listener reads \(gzip, zstd, lz4\)/);
    const big = await post(`${s.url}/ingest`, JSON.stringify({ id: 9, name: 'x'.repeat(5000) }), auth);
    expect(big.statusCode).toBe(413);
    expect((await json(big)).error).toMatch(/over max_body_bytes \(2048\)/);
    const bomb = await post(`${s.url}/ingest`, gzipSync(Buffer.from(JSON.stringify({ id: 9, name: 'x'.repeat(100_000) }))), { ...auth, 'content-encoding': 'gzip' });
    expect(bomb.statusCode).toBe(413);
    await bomb.body.text();
  });

  it('422 when the sink rejects the message (constraint), with its id', async () => {
    const r = await post(`${s.url}/ingest`, '{"id":2}', { ...auth, 'message-id': '42' });
    expect(r.statusCode).toBe(422);
    const b = await json(r);
    expect(b.error).toMatch(/null value in column "name"/);
    expect(b.message_id).toBe('0000000000000000000000000000002a');
  });
});

describe('HTTP listener: lookups, fire-and-forget, overload, timeouts, sink failures', () => {
  it('200 with the row (found) and 404 (not found) for a lookup sink; answers compressed by Accept-Encoding', async () => {
    const s = await serve(lookupSink, 'compression_enabled=true&compression_threshold_bytes=10');
    try {
      const found = await post(s.url, '{"id":2}');
      expect(found.statusCode).toBe(200);
      expect(found.headers['content-type']).toBe('application/json');
      expect(await found.body.text()).toBe('{"id":2,"name":"bob"}');
      const missing = await post(s.url, '{"id":7}');
      expect(missing.statusCode).toBe(404);
      expect((await json(missing)).error).toBe('not found');
      for (const codec of ['gzip', 'zstd', 'lz4']) {
        const r = await post(s.url, '{"id":1}', { 'accept-encoding': codec });
        expect(r.headers['content-encoding']).toBe(codec);
        const raw = Buffer.from(await r.body.arrayBuffer());
        const text =
          codec === 'gzip' ? gunzipSync(raw).toString() : codec === 'zstd' ? (await import('zstd-napi')).decompress(raw).toString() : (await (await import('lz4-napi')).decompressFrame(raw)).toString();
        expect(text).toBe('{"id":1,"name":"ann"}');
      }
    } finally {
      await s.stop();
    }
  });

  it('202 at once with fire_and_forget; accepted messages are written before a clean stop', async () => {
    await pg.exec('TRUNCATE t_http');
    const s = await serve(insertSink, 'fire_and_forget=true');
    const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => post(s.url, JSON.stringify({ id: 100 + i, name: 'f' }))));
    for (const r of rs) {
      expect(r.statusCode).toBe(202);
      expect((await json(r)).message_id).toMatch(/^[0-9a-f]{32}$/);
    }
    expect((await s.stop()).exitCode).toBe(0);
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_http')).toEqual([{ n: 50 }]);
  });

  it('503 with Retry-After when the internal buffer is full, 504 after request_timeout_ms, 502 when the sink keeps failing', async () => {
    await pg.exec('TRUNCATE t_http');
    const s = await serve(`${insertSink}&options=${encodeURIComponent('-c lock_timeout=300')}`, 'internal_buffer_size=2&request_timeout_ms=700');
    // Hold a lock on the sink table: inserts wait, then fail with lock_timeout (a transient error).
    const blocker = await postgres();
    await blocker.exec('BEGIN; LOCK TABLE t_http IN ACCESS EXCLUSIVE MODE');
    try {
      const first = post(s.url, '{"id":1,"name":"waits"}');
      await new Promise((r) => setTimeout(r, 100));
      // Besides the buffer's 2, the route holds the batches it has read ahead (1 or 2 messages each,
      // as they arrive): 6 requests spread out were all taken on a busy machine; 20 cannot be.
      const rest = await Promise.all(Array.from({ length: 20 }, (_, i) => post(s.url, JSON.stringify({ id: 10 + i, name: 'x' }))));
      const full = rest.filter((r) => r.statusCode === 503);
      expect(full.length).toBeGreaterThan(0);
      expect(full[0]!.headers['retry-after']).toBe('1');
      expect((await json(full[0]!)).error).toMatch(/internal buffer is full/);
      const timedOut = await first;
      expect(timedOut.statusCode).toBe(504);
      expect((await json(timedOut)).error).toMatch(/no reply within request_timeout_ms \(700 ms\)/);
      for (const r of rest) if (r !== full[0]) await r.body.text().catch(() => {});
      await blocker.exec('COMMIT');
      await blocker.exec('BEGIN; LOCK TABLE t_http IN ACCESS EXCLUSIVE MODE');
      const s2 = await serve(`${insertSink}&options=${encodeURIComponent('-c lock_timeout=100')}`, 'request_timeout_ms=10000');
      const failing = await post(s2.url, '{"id":3,"name":"x"}');
      expect(failing.statusCode).toBe(502);
      expect((await json(failing)).error).toMatch(/the sink failed: .*lock timeout/);
      await s2.stop();
    } finally {
      await blocker.exec('ROLLBACK').catch(() => {});
      await blocker.close();
      await s.stop();
    }
  });
});

describe('HTTP/2, TLS and client certificates', () => {
  const h2 = (url: string, opts: http2.SecureClientSessionOptions = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const c = http2.connect(url, opts);
      c.on('error', reject);
      const req = c.request({ ':method': 'POST', ':path': '/', 'content-type': 'application/json' });
      let body = '';
      let status = 0;
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        c.close();
        resolve({ status, body });
      });
      req.on('error', reject);
      req.end('{"id":1}');
    });

  it('auto: HTTP/1.1 and h2c prior knowledge on one cleartext port', async () => {
    const s = await serve(lookupSink);
    try {
      expect((await h2(s.url)).body).toBe('{"id":1,"name":"ann"}');
      const r = await post(s.url, '{"id":1}');
      expect(r.statusCode).toBe(200);
      await r.body.text();
    } finally {
      await s.stop();
    }
  });

  it('http1_only refuses h2c; http2_only refuses HTTP/1.1', async () => {
    const one = await serve(lookupSink, 'server_protocol=http1_only');
    await expect(h2(one.url)).rejects.toThrow();
    await one.stop();
    const two = await serve(lookupSink, 'server_protocol=http2_only');
    expect((await h2(two.url)).status).toBe(200);
    await expect(post(two.url, '{"id":1}').then((r) => r.body.text())).rejects.toThrow();
    await two.stop();
  });

  it('HTTPS: h2 by ALPN; with ca_file, a client without a certificate is refused and one signed by the CA is served', async () => {
    const tls = encodeURIComponent(JSON.stringify({ cert_file: certs.serverCert, key_file: certs.serverKey, ca_file: certs.ca }));
    const s = await serve(lookupSink, `tls=${tls}`, [], 'https');
    try {
      const ca = readFileSync(certs.ca);
      await expect(h2(s.url, { ca })).rejects.toThrow();
      const ok = await h2(s.url, { ca, cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) });
      expect(ok).toEqual({ status: 200, body: '{"id":1,"name":"ann"}' });
    } finally {
      await s.stop();
    }
  });
});

describe('bodies: compressed requests, streamed requests, batching', () => {
  it('a 10 KB body arrives in every codec; bodies below the threshold stay uncompressed', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_http_big; CREATE TABLE t_http_big (id int PRIMARY KEY, name text)');
    const s = await serve(`${PG_URL}?table=t_http_big&columns=auto`);
    try {
      const zstd = await import('zstd-napi');
      const lz4 = await import('lz4-napi');
      const bodies: [string, (b: Buffer) => Buffer | Promise<Buffer>][] = [
        ['gzip', (b) => gzipSync(b)],
        ['zstd', (b) => zstd.compress(b)],
        ['lz4', (b) => lz4.compressFrame(b)],
      ];
      for (const [i, [codec, enc]] of bodies.entries()) {
        const body = Buffer.from(JSON.stringify({ id: i, name: 'z'.repeat(10_000) }));
        const r = await post(s.url, await enc(body), { 'content-encoding': codec });
        expect({ codec, status: r.statusCode }).toEqual({ codec, status: 204 });
        await r.body.text();
      }
      expect(await pg.rows('SELECT id, length(name) AS n FROM t_http_big ORDER BY id')).toEqual([0, 1, 2].map((id) => ({ id, n: 10_000 })));
    } finally {
      await s.stop();
    }
  });

  it('receive_streamable: an NDJSON request of 1k lines becomes 1k rows', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_http_stream; CREATE TABLE t_http_stream (id int PRIMARY KEY)');
    const s = await serve(`${PG_URL}?table=t_http_stream&columns=auto`, 'receive_streamable=true');
    try {
      const body = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ id: i })).join('\n') + '\n';
      const r = await post(s.url, body, { 'content-type': 'application/x-ndjson' });
      expect(r.statusCode).toBe(204);
      expect(r.headers['x-bridge-messages']).toBe('1000');
      expect(await pg.rows('SELECT count(*)::int AS n FROM t_http_stream')).toEqual([{ n: 1000 }]);
      const sse = await post(s.url, 'data: {"id":5000}\n\nevent: x\ndata: {"id":5001}\n\n', { 'content-type': 'text/event-stream' });
      expect(sse.headers['x-bridge-messages']).toBe('2');
    } finally {
      await s.stop();
    }
  });

  it('many concurrent requests become few multi-row inserts, each answered after its own row is written', async () => {
    await pg.exec('TRUNCATE t_http');
    const s = await serve(insertSink, 'concurrency_limit=400&internal_buffer_size=400');
    // The sink is held while the requests arrive, so they queue whatever this machine's speed: how
    // many batches an unheld run takes depends on arrival timing (7 alone, over 150 after other tests).
    const blocker = await postgres();
    await blocker.exec('BEGIN; LOCK TABLE t_http IN ACCESS EXCLUSIVE MODE');
    const sent = Promise.all(Array.from({ length: 300 }, (_, i) => post(s.url, JSON.stringify({ id: 1000 + i, name: 'c' }))));
    await new Promise((r) => setTimeout(r, 1500));
    await blocker.exec('COMMIT');
    await blocker.close();
    const rs = await sent;
    expect(rs.every((r) => r.statusCode === 204)).toBe(true);
    const { stderr } = await s.stop();
    const summary = stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string; batches?: number; rows?: number })
      .find((o) => o.type === 'summary')!;
    expect(summary.rows).toBe(300);
    expect(summary.batches).toBeLessThan(20);
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_http')).toEqual([{ n: 300 }]);
  });
});

describe('workers and the inline fast path', () => {
  it('workers=2: two processes share the port; every request is answered and written; SIGTERM stops all', async () => {
    await pg.exec('TRUNCATE t_http');
    const s = await serve(insertSink, 'workers=2');
    const { execFileSync } = await import('node:child_process');
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(s.proc.pid)], { encoding: 'utf8' }).trim().split('\n');
    expect(children).toHaveLength(2);
    const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => post(s.url, JSON.stringify({ id: 5000 + i, name: 'w' }))));
    expect(rs.every((r) => r.statusCode === 204)).toBe(true);
    expect((await s.stop()).exitCode).toBe(0);
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_http')).toEqual([{ n: 100 }]);
  });

  it('inline_response_fast_path answers lookups straight from the sink; false sends them through the batching pipeline; both answer the same', async () => {
    for (const fast of ['true', 'false']) {
      const s = await serve(lookupSink, `inline_response_fast_path=${fast}`);
      const rs = await Promise.all([1, 2, 3].map((id) => post(s.url, JSON.stringify({ id }))));
      expect(rs.map((r) => r.statusCode)).toEqual([200, 200, 404]);
      expect(await rs[1]!.body.text()).toBe('{"id":2,"name":"bob"}');
      const { stderr } = await s.stop();
      const summary = stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { type: string; batches?: number })
        .find((o) => o.type === 'summary')!;
      // The fast path bypasses the pipeline: it counts no batches.
      expect(summary.batches === 0).toBe(fast === 'true');
    }
  });
});
