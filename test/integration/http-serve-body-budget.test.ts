import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, tempDir, waitFor } from '../helpers/bridge.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found by a helper probing serve: 40 clients that each sent 15 MB of a 15,000,010-byte body and
 * then held grew the listener to 635 MB, three times --memory-budget: each unfinished body was
 * kept whole until max_body_bytes, and concurrency_limit (100) times 16 MiB is 1.6 GB. The bodies
 * still arriving now share one bound, body_buffer_bytes: a body that would pass it is answered 503
 * with Retry-After and not read further; the bytes of a finished or abandoned body count no more.
 */
const dir = tempDir();
const out = path.join(dir, 'out.ndjson');
let s: Served;
const MB = 1024 * 1024;

beforeAll(async () => {
  s = await serve(`file://${out}`, `max_body_bytes=${MB}&body_buffer_bytes=${3 * MB}`);
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
});

/** A connection that sends `sent` bytes of a body declared one byte longer, then holds; what the server answers, if it does. */
function holding(port: number, sent: number): { sock: net.Socket; answer: Promise<string> } {
  const sock = net.connect(port, '127.0.0.1');
  let got = '';
  const answer = new Promise<string>((resolve) => {
    sock.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.includes('\r\n\r\n')) resolve(got);
    });
    sock.on('close', () => resolve(got));
    sock.on('error', () => {});
  });
  sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${sent + 1}\r\n\r\n`);
  sock.write(Buffer.alloc(sent, 0x61));
  return { sock, answer };
}

describe('serve: request bodies still arriving share body_buffer_bytes', () => {
  it('three held 900 KB bodies fit; a fourth is answered 503 with Retry-After; once they go, a whole request lands', async () => {
    const held = [0, 1, 2].map(() => holding(s.port, 900 * 1024));
    await sleep(500);
    const fourth = holding(s.port, 900 * 1024);
    const answer = await Promise.race([fourth.answer, sleep(10_000).then(() => 'no answer within 10 s')]);
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(answer).toMatch(/retry-after: \d+/i);
    for (const h of [...held, fourth]) h.sock.destroy();
    await sleep(300);
    const r = await request(s.url, { method: 'POST', body: JSON.stringify({ after: 'a'.repeat(900 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(r.statusCode, await r.body.text()).toBe(204);
    await waitFor(async () => readWholeLines(out).length >= 1, 10_000, 20);
    expect((readWholeLines(out) as { after: string }[]).map((l) => l.after.length)).toEqual([900 * 1024]);
  });
});
