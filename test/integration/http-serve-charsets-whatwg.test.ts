import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, tempDir, waitFor } from '../helpers/bridge.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found probing serve with bodies in the charsets their Content-Type names: `charset=windows-1252`
 * bytes 80 93 78 94 (`€“x”`, what Windows programs send) were stored as U+0080 U+0093 x U+0094,
 * answered 204: Node 20's TextDecoder reads windows-1252's 0x80–0x9F as C1 controls. And
 * `charset=utf-16` with a big-endian byte order mark was read little-endian: "hello café" became
 * "￾栀攀氀氀漀 挀愀昀", answered 204. windows-1252 (and the labels the WHATWG standard gives it:
 * cp1252, iso-8859-1, latin1) is now read by its own table, and UTF-16's byte order mark decides.
 * And `charset=` was read from inside another parameter's quoted value: `foo="a;charset=klingon"`
 * with a UTF-8 body was refused 415; parameters are now read one by one.
 */
const dir = tempDir();
const single = path.join(dir, 'single.ndjson');
const streamed = path.join(dir, 'streamed.ndjson');
let s: Served;
let st: Served;

beforeAll(async () => {
  s = await serve(`file://${single}`);
  st = await serve(`file://${streamed}`, 'receive_streamable=true');
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
  expect((await st.stop()).exitCode).toBe(0);
});

const post = (url: string, body: Buffer | AsyncIterable<Buffer>, type: string) => request(url, { method: 'POST', body, headers: { 'content-type': type } });
const utf16be = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();

async function* inPieces(b: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) {
    yield b.subarray(i, i + size);
    await sleep(20);
  }
}

describe('serve: bodies in windows-1252 and UTF-16', () => {
  it('windows-1252 and cp1252 bodies land as their text (€, curly quotes); an ISO-8859-1 é still lands as é', async () => {
    for (const type of ['text/plain; charset=windows-1252', 'application/json; charset=cp1252']) {
      const body = type.startsWith('text') ? Buffer.from([0x80, 0x93, 0x78, 0x94]) : Buffer.from([0x22, 0x80, 0x93, 0x78, 0x94, 0x22]);
      const r = await post(s.url, body, type);
      expect(r.statusCode, await r.body.text()).toBe(204);
    }
    const latin = await post(s.url, Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=ISO-8859-1');
    expect(latin.statusCode).toBe(204);
    await waitFor(async () => readWholeLines(single).length >= 3, 10_000, 20);
    expect(readWholeLines(single)).toEqual(['€“x”', '€“x”', 'café']);
  });

  it('charset=utf-16 with a big-endian byte order mark, one request and streamed in 3-byte pieces; little-endian as before', async () => {
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('hello café')]);
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello café', 'utf16le')]);
    for (const body of [be, le]) {
      const r = await post(s.url, body, 'text/plain; charset=utf-16');
      expect(r.statusCode, await r.body.text()).toBe(204);
    }
    const lines = Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('{"n":1,"s":"é"}\n{"n":2,"s":"😀"}\n')]);
    const r = await post(st.url, inPieces(lines, 3), 'application/x-ndjson; charset=utf-16');
    expect(r.statusCode, await r.body.text()).toBe(204);
    await waitFor(async () => readWholeLines(single).length >= 5 && readWholeLines(streamed).length >= 2, 10_000, 20);
    expect(readWholeLines(single).slice(3)).toEqual(['hello café', 'hello café']);
    expect(readWholeLines(streamed)).toEqual([
      { n: 1, s: 'é' },
      { n: 2, s: '😀' },
    ]);
  });

  it('charset= inside another parameter\'s quoted value is not the charset: the UTF-8 body lands', async () => {
    const before = readWholeLines(single).length;
    const r = await post(s.url, Buffer.from('naïve'), 'text/plain; foo="a;charset=klingon"; charset=utf-8');
    expect(r.statusCode, await r.body.text()).toBe(204);
    const q = await post(s.url, Buffer.from('quoted'), 'text/plain; foo="a;charset=klingon"');
    expect(q.statusCode, await q.body.text()).toBe(204);
    await waitFor(async () => readWholeLines(single).length >= before + 2, 10_000, 20);
    expect(readWholeLines(single).slice(before)).toEqual(['naïve', 'quoted']);
  });
});
