import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { readWholeLines, tempDir, waitFor } from '../helpers/bridge.js';
import { serve } from '../helpers/serve.js';

/**
 * Found by a helper probing serve: a receive_streamable client sending one NDJSON line every 0.2 s
 * without end, and SIGTERM. The listener said "stopping after the batch in flight" and went on
 * reading and writing its lines, still running 40 s later; a second SIGTERM killed it with no
 * summary and no answer, 256 lines written. A stop now gives the streams being read 2 s to end, then ends them: each is
 * answered 503 saying how many of its items were written (x-bridge-messages-written), and the
 * listener exits 0 with every one of those in the sink.
 */
const dir = tempDir();
const out = path.join(dir, 'out.ndjson');

describe('serve receive_streamable: SIGTERM while a client streams without end', () => {
  it('the stream is answered 503 with the count written, the listener exits 0 within seconds, and the sink holds exactly those items', async () => {
    const s = await serve(`file://${out}`, 'receive_streamable=true');
    let n = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        yield Buffer.from(`${JSON.stringify({ n: n++ })}\n`);
        await sleep(100);
      }
    }
    const answer = request(s.url, { method: 'POST', body: endless(), headers: { 'content-type': 'application/x-ndjson' } });
    await waitFor(async () => readWholeLines(out).length >= 5, 10_000, 20);
    const t0 = Date.now();
    const stopped = s.stop();
    const r = await answer;
    const body = (await r.body.json()) as { written: number };
    const { exitCode } = await stopped;
    expect(exitCode).toBe(0);
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(r.statusCode).toBe(503);
    const written = Number(r.headers['x-bridge-messages-written']);
    expect(body.written).toBe(written);
    expect(readWholeLines(out)).toEqual(Array.from({ length: written }, (_, i) => ({ n: i })));
  });
});
