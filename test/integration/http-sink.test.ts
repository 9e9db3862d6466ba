import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { makeCerts, type Certs } from '../helpers/certs.js';

/** The HTTP publisher against real servers on loopback. */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
type Answer = (seen: Seen, n: number) => { status: number; body?: string | Buffer; type?: string; delayMs?: number; headers?: Record<string, string> };

const dir = tempDir();
let certs: Certs;
let servers: http.Server[] = [];
beforeAll(() => {
  certs = makeCerts();
});
afterEach(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  servers = [];
});

async function target(answer: Answer, opts: { tls?: https.ServerOptions } = {}): Promise<{ url: string; seen: Seen[]; maxConcurrent: () => number }> {
  const seen: Seen[] = [];
  let active = 0;
  let max = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    active++;
    max = Math.max(max, active);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(s);
      const a = answer(s, seen.length);
      setTimeout(() => {
        active--;
        res.writeHead(a.status, { 'content-type': a.type ?? 'application/json', ...a.headers });
        res.end(a.body ?? '');
      }, a.delayMs ?? 5);
    });
  };
  const server = opts.tls ? https.createServer(opts.tls, handler) : http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`, seen, maxConcurrent: () => max };
}

function fixture(name: string, n: number, size = 10): string {
  const file = path.join(dir, name);
  writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ i, pad: 'p'.repeat(size) })).join('\n') + '\n');
  return `file://${file}`;
}

describe('HTTP publisher', () => {
  it('sends each message with the method, headers, basic auth and message id; batch_concurrency bounds the requests in flight', async () => {
    const t = await target(() => ({ status: 200 }));
    const headers = encodeURIComponent('{"x-api-key":"K3y-secret-value"}');
    const auth = encodeURIComponent('["svc","Pa55word!"]');
    const r = await bridge(['copy', fixture('h.ndjson', 40), `${t.url}/events?tenant=acme&method=PUT&custom_headers=${headers}&basic_auth=${auth}&batch_concurrency=4`]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toMatch(/K3y-secret-value|Pa55word/);
    expect(t.seen).toHaveLength(40);
    const s0 = t.seen[0]!;
    expect(s0.method).toBe('PUT');
    expect(s0.url).toBe('/events?tenant=acme');
    expect(s0.headers['x-api-key']).toBe('K3y-secret-value');
    expect(s0.headers.authorization).toBe(`Basic ${Buffer.from('svc:Pa55word!').toString('base64')}`);
    expect(s0.headers['content-type']).toBe('application/json');
    expect(s0.headers['message-id']).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(t.seen.map((s) => JSON.parse(s.body.toString()).i)).size).toBe(40);
    expect(t.maxConcurrent()).toBeLessThanOrEqual(4);
    expect(t.maxConcurrent()).toBeGreaterThan(1);
  });

  it('compresses bodies with each codec above the threshold, not below it', async () => {
    for (const codec of ['gzip', 'zstd', 'lz4']) {
      const t = await target(() => ({ status: 204 }));
      const r = await bridge(['copy', fixture(`c-${codec}.ndjson`, 2, 10_000), `${t.url}/?compression=${codec}`, '-q']);
      expect(r.exitCode).toBe(0);
      for (const s of t.seen) {
        expect(s.headers['content-encoding']).toBe(codec);
        const body =
          codec === 'gzip' ? gunzipSync(s.body) : codec === 'zstd' ? (await import('zstd-napi')).decompress(s.body) : await (await import('lz4-napi')).decompressFrame(s.body);
        expect(JSON.parse(body.toString()).pad).toHaveLength(10_000);
      }
    }
    const small = await target(() => ({ status: 204 }));
    await bridge(['copy', fixture('small.ndjson', 1, 10), `${small.url}/?compression_enabled=true`, '-q']);
    expect(small.seen[0]!.headers['content-encoding']).toBeUndefined();
  });

  it('retries 503 and 429, never re-sending a message already delivered', async () => {
    const tries = new Map<number, number>();
    const t = await target((s) => {
      const i = JSON.parse(s.body.toString()).i as number;
      tries.set(i, (tries.get(i) ?? 0) + 1);
      return i % 3 === 0 && tries.get(i)! <= 2 ? { status: i % 2 ? 503 : 429 } : { status: 200 };
    });
    const r = await bridge(['copy', fixture('retry.ndjson', 30), t.url, '--batch-size', '10']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/retry 1 in \d+ ms: HTTP (503|429)/);
    for (let i = 0; i < 30; i++) expect({ i, n: tries.get(i) }).toEqual({ i, n: i % 3 === 0 ? 3 : 1 });
  });

  it('a peer that redirects (308 to /v2/events): exit 2 naming where, before any message is dead-lettered', async () => {
    const t = await target(() => ({ status: 308, headers: { location: '/v2/events' } }));
    const dead = path.join(dir, 'redirect-dead.ndjson');
    const r = await bridge(['copy', fixture('redirect.ndjson', 5), `${t.url}/events`, '--dead-letter', `file://${dead}`]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/127\.0\.0\.1:\d+ answered HTTP 308, a redirect to http:\/\/127\.0\.0\.1:\d+\/v2\/events: .*set the sink's URL to it/);
    expect(existsSync(dead) ? readFileSync(dead, 'utf8') : '').toBe('');
  });

  it('a 4xx is a rejection: exit 4 naming the message, or the dead-letter endpoint with the status', async () => {
    const t = await target((s) => (JSON.parse(s.body.toString()).i === 3 ? { status: 400, body: '{"error":"bad field"}' } : { status: 200 }));
    const r = await bridge(['copy', fixture('rej.ndjson', 6), t.url]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/HTTP 400 from 127\.0\.0\.1:\d+ for message [0-9a-f]{32}: \{"error":"bad field"\}/);
    const dead = path.join(dir, 'dead.ndjson');
    const ok = await bridge(['copy', fixture('rej.ndjson', 6), t.url, '--dead-letter', `file://${dead}`, '-q']);
    expect(ok.exitCode).toBe(0);
    const d = parseLines(readFileSync(dead, 'utf8')) as { metadata: Record<string, string>; payload: { i: number } }[];
    expect(d.map((x) => x.payload.i)).toEqual([3]);
    expect(d[0]!.metadata['bridge.error']).toMatch(/HTTP 400/);
  });

  it('responses become reply messages; SSE and NDJSON responses go item by item to stream_response_to', async () => {
    const t = await target((s) => {
      const i = JSON.parse(s.body.toString()).i as number;
      if (i === 0) return { status: 200, body: '{"ok":true}' };
      if (i === 1) return { status: 200, type: 'text/event-stream', body: 'data: {"token":"a"}\n\ndata: {"token":"b"}\n\n' };
      return { status: 200, type: 'application/x-ndjson', body: '{"row":1}\n{"row":2}\n{"row":3}\n' };
    });
    const replies = path.join(dir, 'replies.ndjson');
    const items = path.join(dir, 'items.ndjson');
    const r = await bridge(['copy', fixture('stream.ndjson', 3), `${t.url}/?stream_response_to=${encodeURIComponent(`file://${items}`)}&batch_concurrency=1`, `file://${replies}?format=envelope`, '-q']);
    expect(r.exitCode).toBe(0);
    const rep = parseLines(readFileSync(replies, 'utf8')) as { id: string; metadata: Record<string, string>; payload: unknown }[];
    expect(rep).toHaveLength(1);
    expect(rep[0]!.payload).toEqual({ ok: true });
    expect(rep[0]!.metadata['http.status']).toBe('200');
    const got = parseLines(readFileSync(items, 'utf8')) as { metadata: Record<string, string>; payload: unknown }[];
    const sse = got.filter((x) => x.metadata.http_stream_format === 'sse');
    const nd = got.filter((x) => x.metadata.http_stream_format === 'ndjson');
    expect(sse.map((x) => [x.payload, x.metadata.http_stream_index, x.metadata.http_stream_end])).toEqual([
      [{ token: 'a' }, '0', 'false'],
      [{ token: 'b' }, '1', 'false'],
      ['', '2', 'true'],
    ]);
    expect(nd.map((x) => x.payload)).toEqual([{ row: 1 }, { row: 2 }, { row: 3 }, '']);
    // The correlation id is the request's message id: 32 zero-padded lowercase hex digits.
    const requestIds = t.seen.map((s) => s.headers['message-id']);
    expect(new Set(sse.map((x) => x.metadata.correlation_id))).toEqual(new Set([requestIds[1]]));
    expect(sse[0]!.metadata.correlation_id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(got.map((x) => x.metadata.http_stream_id)).size).toBe(2);
  });

  it('a streamed answer is read in its charset; one not in it rejects its message (exit 4) instead of being retried with its items written again', async () => {
    const t = await target((s) => {
      const i = JSON.parse(s.body.toString()).i as number;
      if (i === 0) return { status: 200, type: 'application/x-ndjson; charset=iso-8859-1', body: Buffer.from('{"s":"caf\u00e9"}\n', 'latin1') };
      return { status: 200, type: 'application/x-ndjson', body: Buffer.concat([Buffer.from('{"row":1}\n{"s":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]) };
    });
    const items = path.join(dir, 'charset-items.ndjson');
    const r = await bridge(['copy', fixture('charset.ndjson', 2), `${t.url}/?stream_response_to=${encodeURIComponent(`file://${items}`)}&batch_concurrency=1`, '-q']);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/streamed answer: the body is not UTF-8/);
    expect(r.stderr).not.toMatch(/retry/);
    expect(t.seen).toHaveLength(2);
    const got = parseLines(readFileSync(items, 'utf8')) as { payload: unknown }[];
    expect(got.map((x) => x.payload)).toEqual([{ s: 'caf\u00e9' }, '']);
  });

  it('request_timeout_ms bounds each request; copy gives up after --max-retries with exit 3', async () => {
    const t = await target(() => ({ status: 200, delayMs: 2000 }));
    const r = await bridge(['copy', fixture('slow.ndjson', 1), `${t.url}/?request_timeout_ms=200`, '--max-retries', '1']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/error: sink: request to 127\.0\.0\.1:\d+ timed out after 200 ms for message [0-9a-f]{32} \(no answer\)/);
  });

  it('TLS: a CA file verifies the server, accept_invalid_certs skips it with a warning, a client certificate with a password is sent', async () => {
    const tlsServer = { cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey), ca: readFileSync(certs.ca), requestCert: true, rejectUnauthorized: true };
    const t = await target(() => ({ status: 204 }), { tls: tlsServer });
    const client = { cert_file: certs.clientCert, key_file: certs.clientKeyEncrypted, cert_password: certs.clientKeyPassword };
    const enc = (o: object) => encodeURIComponent(JSON.stringify(o));
    const ok = await bridge(['copy', fixture('tls.ndjson', 1), `${t.url}/?tls=${enc({ ...client, ca_file: certs.ca })}`, '-q']);
    expect(ok.exitCode).toBe(0);
    expect(t.seen).toHaveLength(1);
    const wrongCa = await bridge(['copy', fixture('tls.ndjson', 1), `${t.url}/?tls=${enc({ ...client, ca_file: certs.otherCa })}`, '--max-retries', '1']);
    expect(wrongCa.exitCode).toBe(3);
    expect(wrongCa.stderr).toMatch(/certificate/i);
    const insecure = await bridge(['copy', fixture('tls.ndjson', 1), `${t.url}/?tls=${enc({ ...client, accept_invalid_certs: true })}`]);
    expect(insecure.exitCode).toBe(0);
    expect(insecure.stderr).toMatch(/accept_invalid_certs is set: the server certificate is not verified/);
    const noCert = await bridge(['copy', fixture('tls.ndjson', 1), `${t.url}/?tls=${enc({ ca_file: certs.ca })}`, '--max-retries', '1']);
    expect(noCert.exitCode).toBe(3);
    expect(noCert.stderr + wrongCa.stderr + ok.stderr).not.toContain(certs.clientKeyPassword);
  });
});
