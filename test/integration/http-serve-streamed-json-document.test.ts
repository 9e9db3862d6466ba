import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, tempDir, waitFor } from '../helpers/bridge.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found probing serve with curl: a 287 KB JSON document POSTed (`Content-Type: application/json`)
 * to a receive_streamable listener was answered 204 `x-bridge-messages: 6` and stored as six JSON
 * strings, each a piece of the document cut where the socket reads happened to end. A JSON body
 * has no items but itself: it is now read whole (within max_body_bytes) as one message, and a
 * body declared JSON that is not JSON is answered 400, as without receive_streamable.
 */
const dir = tempDir();
const out = path.join(dir, 'out.ndjson');
let st: Served;
const doc = { items: Array.from({ length: 4000 }, (_, i) => ({ i, s: 'x'.repeat(50), big: '12345678901234567890' })) };

beforeAll(async () => {
  st = await serve(`file://${out}`, 'receive_streamable=true');
});
afterAll(async () => {
  expect((await st.stop()).exitCode).toBe(0);
});

/** A body sent in pieces with pauses between, so the listener reads it in several chunks. */
async function* pieces(text: string, n: number): AsyncGenerator<Buffer> {
  const size = Math.ceil(text.length / n);
  for (let k = 0; k < n; k++) {
    yield Buffer.from(text.slice(k * size, (k + 1) * size));
    await sleep(30);
  }
}

describe('serve receive_streamable: a body declared JSON is one document', () => {
  it('a 287 KB JSON document from curl lands as one message equal to it', async () => {
    const file = path.join(dir, 'big.json');
    writeFileSync(file, JSON.stringify(doc));
    const head = execFileSync('curl', ['-s', '-i', '-H', 'content-type: application/json', '--data-binary', `@${file}`, st.url], { encoding: 'utf8' });
    expect(head).toMatch(/^HTTP\/1\.1 204/);
    expect(head).toMatch(/x-bridge-messages: 1\r\n/);
    await waitFor(async () => readWholeLines(out).length >= 1, 10_000, 20);
    expect(readWholeLines(out)).toEqual([doc]);
  });

  it('sent in five pieces with pauses (application/problem+json): one message; a document cut short is answered 400 and nothing is written', async () => {
    const r = await request(st.url, { method: 'POST', body: pieces(JSON.stringify({ part: 'whole', n: [1, 2, 3] }), 5), headers: { 'content-type': 'application/problem+json' } });
    expect(r.statusCode, await r.body.text()).toBe(204);
    expect(r.headers['x-bridge-messages']).toBe('1');
    const cut = await request(st.url, { method: 'POST', body: pieces('{"part": "cut", "n": [1, 2', 3), headers: { 'content-type': 'application/json' } });
    expect(cut.statusCode).toBe(400);
    expect(await cut.body.text()).toMatch(/declared application\/json but is not JSON/);
    await waitFor(async () => readWholeLines(out).length >= 2, 10_000, 20);
    await sleep(200);
    expect(readWholeLines(out).slice(1)).toEqual([{ part: 'whole', n: [1, 2, 3] }]);
  });
});
