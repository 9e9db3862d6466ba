import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bridge, lines, tempDir } from '../helpers/bridge.js';
import { postgres } from '../helpers/databases.js';

/** The HTTP publisher against peers that pace it, stall, or are addressed with credentials in the URL. */
interface Hit {
  at: number;
  i: number;
  headers: http.IncomingHttpHeaders;
}
/** Answers a request, or returns 'stall' to send headers and never finish, or 'silent' to never answer. */
type Peer = (hit: Hit, n: number, res: http.ServerResponse) => 'stall' | 'silent' | void;

const dir = tempDir();
let servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
});

async function peer(answer: Peer): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = { at: Date.now(), i: (JSON.parse(Buffer.concat(chunks).toString() || '{"i":-1}') as { i: number }).i, headers: req.headers };
      hits.push(hit);
      const how = answer(hit, hits.length, res);
      if (how === 'stall') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"partial":');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

function fixture(name: string, n: number): string {
  const file = path.join(dir, name);
  writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ i })).join('\n') + '\n');
  return `file://${file}`;
}

const gapsOf = (hits: Hit[], i: number): number[] => {
  const at = hits.filter((h) => h.i === i).map((h) => h.at);
  return at.slice(1).map((t, k) => t - at[k]!);
};

describe('HTTP sink: Retry-After', () => {
  it('a 429 with Retry-After: 2 is re-sent no sooner than 2 s later', async () => {
    const t = await peer((h, n, res) => {
      res.writeHead(n === 1 ? 429 : 200, n === 1 ? { 'retry-after': '2' } : {});
      res.end();
    });
    const r = await bridge(['copy', fixture('ra.ndjson', 1), t.url]);
    expect(r.exitCode).toBe(0);
    const [gap] = gapsOf(t.hits, 0);
    console.log(`Retry-After: 2 -> measured gap ${gap} ms`);
    expect(gap).toBeGreaterThanOrEqual(1950);
    expect(gap).toBeLessThan(4000);
    expect(r.stderr).toMatch(/HTTP 429 from 127\.0\.0\.1:\d+: waiting 2000 ms as its Retry-After asks/);
  });

  it('a 503 with an HTTP-date Retry-After waits until that date', async () => {
    let until = 0;
    const t = await peer((h, n, res) => {
      if (n === 1) {
        // Dates have whole seconds: 3 s ahead, rounded up, is at least 2 s away.
        until = Math.ceil((Date.now() + 3000) / 1000) * 1000;
        res.writeHead(503, { 'retry-after': new Date(until).toUTCString() });
      } else res.writeHead(200);
      res.end();
    });
    const r = await bridge(['copy', fixture('ra-date.ndjson', 1), t.url]);
    expect(r.exitCode).toBe(0);
    expect(t.hits[1]!.at).toBeGreaterThanOrEqual(until - 50);
    expect(gapsOf(t.hits, 0)[0]).toBeGreaterThanOrEqual(1950);
  });

  it('waits on Retry-After do not use up --max-retries: three 429 Retry-After: 1 with --max-retries 2 still deliver', async () => {
    const t = await peer((h, n, res) => {
      res.writeHead(n <= 3 ? 429 : 200, n <= 3 ? { 'retry-after': '1' } : {});
      res.end();
    });
    const r = await bridge(['copy', fixture('ra-three.ndjson', 1), t.url, '--max-retries', '2']);
    expect(r.exitCode).toBe(0);
    expect(t.hits).toHaveLength(4);
    expect(gapsOf(t.hits, 0).every((g) => g >= 950)).toBe(true);
    expect(r.stderr).toMatch(/done: 1 rows/);
  });

  it('a Retry-After longer than retry_after_max_ms waits retry_after_max_ms', async () => {
    const t = await peer((h, n, res) => {
      res.writeHead(n === 1 ? 503 : 200, n === 1 ? { 'retry-after': '3600' } : {});
      res.end();
    });
    const r = await bridge(['copy', fixture('ra-cap.ndjson', 1), `${t.url}/?retry_after_max_ms=700`]);
    expect(r.exitCode).toBe(0);
    const [gap] = gapsOf(t.hits, 0);
    expect(gap).toBeGreaterThanOrEqual(650);
    expect(gap).toBeLessThan(2500);
    expect(r.stderr).toMatch(/asks 3600000 ms; waiting 700 ms \(retry_after_max_ms\)/);
  });
});

describe('HTTP sink: a peer that stalls', () => {
  for (const how of ['stall', 'silent'] as const) {
    it(`a peer that ${how === 'stall' ? 'sends headers and never finishes the body' : 'accepts and never answers'}: copy of 200 rows stops in bounded time, naming host, timeout and message`, async () => {
      const t = await peer(() => how);
      const started = Date.now();
      const r = await bridge(['copy', fixture(`stall-${how}.ndjson`, 200), `${t.url}/in?request_timeout_ms=1000`, '--max-retries', '2', '--progress', 'plain'], { timeout: 120_000 });
      const took = Date.now() - started;
      console.log(`${how}: copy ended in ${took} ms after ${t.hits.length} requests, exit ${r.exitCode}`);
      expect(took).toBeLessThan(15_000);
      expect(r.exitCode).toBe(3);
      const errors = lines(r.stderr).filter((l) => / error: /.test(l));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/request to 127\.0\.0\.1:\d+ timed out after 1000 ms for message [0-9a-f]{32}/);
      expect(errors[0]).toMatch(/requests in a row timed out/);
      expect(r.stderr).toMatch(/failed: 0 rows/);
      // One window of 20, the few started while its timeouts came in (given up when the breaker
      // opened), then one probe per retry: not 200 requests per attempt.
      expect(t.hits.length).toBeLessThanOrEqual(2 * 20 + 2);
    });
  }
});

describe('HTTP sink: what a copy waits on', () => {
  it('a peer that sends headers and stalls: every progress line says the copy waits on that host, for how long, and the timeout', async () => {
    const t = await peer(() => 'stall');
    const r = await bridge(['copy', fixture('waits.ndjson', 30), `${t.url}/in?request_timeout_ms=3000&batch_concurrency=5`, '--max-retries', '1', '--progress', 'plain', '--progress-interval', '400'], { timeout: 60_000 });
    expect(r.exitCode).toBe(3);
    // Once a request has waited a second, each line names what holds the copy: 5 at once, then (the breaker open) the retry's single probe.
    const progress = lines(r.stderr).filter((l) => /, in flight \d/.test(l) && /oldest [1-9]/.test(l));
    expect(progress.length).toBeGreaterThan(2);
    for (const l of progress) expect(l).toMatch(/waiting on 127\.0\.0\.1:\d+: (5 requests|1 request), oldest \d+(\.\d)? s \(answer started, not finished; request_timeout_ms 3000\)/);
    expect(progress.some((l) => / 5 requests, oldest [12](\.\d)? s /.test(l))).toBe(true);
    const json = await bridge(['copy', fixture('waits-json.ndjson', 5), `${t.url}/in?request_timeout_ms=1500`, '--max-retries', '1', '--progress', 'json', '--progress-interval', '400'], { timeout: 60_000 });
    const waits = lines(json.stderr).map((l) => JSON.parse(l) as { waiting_on?: string | null }).filter((o) => o.waiting_on);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]!.waiting_on).toMatch(/^127\.0\.0\.1:\d+: 5 requests, oldest/);
  });
});

describe('HTTP sink: Idempotency-Key', () => {
  it('every request carries Idempotency-Key = the message id, the same for the same line in a second run (NDJSON source)', async () => {
    const t = await peer((h, n, res) => {
      res.writeHead(204);
      res.end();
    });
    const file = fixture('idem.ndjson', 5);
    for (let run = 0; run < 2; run++) expect((await bridge(['copy', file, `${t.url}/in`, '-q'])).exitCode).toBe(0);
    const keys = (run: number) => t.hits.slice(run * 5, run * 5 + 5).sort((a, b) => a.i - b.i).map((h) => h.headers['idempotency-key']);
    expect(keys(0).every((k) => typeof k === 'string' && /^[0-9a-f]{32}$/.test(k))).toBe(true);
    expect(new Set(keys(0)).size).toBe(5);
    expect(keys(1)).toEqual(keys(0));
    expect(t.hits.every((h) => h.headers['idempotency-key'] === h.headers['message-id'])).toBe(true);
    const custom = await peer((h, n, res) => {
      res.writeHead(204);
      res.end();
    });
    expect((await bridge(['copy', fixture('idem2.ndjson', 1), `${custom.url}/in?custom_headers=${encodeURIComponent('{"Idempotency-Key":"mine"}')}`, '-q'])).exitCode).toBe(0);
    expect(custom.hits[0]!.headers['idempotency-key'], 'custom_headers win').toBe('mine');
  });

  it('rows of a cursor tail by mtime: a row updated later is another message (another key); the same version keeps its key', async () => {
    const pg = await postgres();
    try {
      await pg.exec("DROP TABLE IF EXISTS idem_rows; CREATE TABLE idem_rows (id int PRIMARY KEY, v text, mtime timestamptz NOT NULL); INSERT INTO idem_rows VALUES (1, 'a', '2026-01-01'), (2, 'b', '2026-01-02')");
      const t = await peer((h, n, res) => {
        res.writeHead(204);
        res.end();
      });
      const body = (h: Hit) => h.headers['idempotency-key'];
      const copy = () => bridge(['copy', pg.url('idem_rows', 'cursor_column=mtime'), `${t.url}/in`, '-q']);
      expect((await copy()).exitCode).toBe(0);
      expect((await copy()).exitCode).toBe(0);
      await pg.exec("UPDATE idem_rows SET v = 'a2', mtime = '2026-01-03' WHERE id = 1");
      expect((await copy()).exitCode).toBe(0);
      const [first, second, third] = [t.hits.slice(0, 2), t.hits.slice(2, 4), t.hits.slice(4, 6)].map((hs) => hs.map(body).sort());
      expect(second, 'the same versions, the same keys').toEqual(first);
      expect(third!.filter((k) => first!.includes(k)), 'row 2 unchanged, row 1 a new version').toHaveLength(1);
    } finally {
      await pg.exec('DROP TABLE IF EXISTS idem_rows');
      await pg.close();
    }
  });
});

describe('HTTP sink: credentials in the URL', () => {
  const password = 'p@ss w0rd-9d1e';
  const userinfo = `svc:${encodeURIComponent(password)}`;
  const leaks = (text: string): string[] =>
    [password, encodeURIComponent(password), Buffer.from(`svc:${password}`).toString('base64')].filter((s) => text.includes(s));

  it('user:pass@ in the sink URL is sent as basic auth, percent-decoded, and never printed', async () => {
    const t = await peer((h, n, res) => {
      res.writeHead(200);
      res.end();
    });
    const url = t.url.replace('http://', `http://${userinfo}@`);
    const r = await bridge(['copy', fixture('cred.ndjson', 2), `${url}/in`]);
    expect(r.exitCode).toBe(0);
    expect(t.hits.map((h) => h.headers.authorization)).toEqual(Array(2).fill(`Basic ${Buffer.from(`svc:${password}`).toString('base64')}`));
    const dry = await bridge(['copy', fixture('cred.ndjson', 2), `${url}/in`, '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/\*\*\*@127\.0\.0\.1/);
    // A peer that echoes the header back in its error, and one that cannot be reached.
    const echo = await peer((h, n, res) => {
      res.writeHead(400);
      res.end(`you sent ${h.headers.authorization}`);
    });
    const rejected = await bridge(['copy', fixture('cred.ndjson', 2), `${echo.url.replace('http://', `http://${userinfo}@`)}/in`]);
    expect(rejected.exitCode).toBe(4);
    expect(rejected.stderr).toMatch(/you sent Basic \*\*\*/);
    const down = await bridge(['copy', fixture('cred.ndjson', 2), `http://${userinfo}@127.0.0.1:1/in`, '--max-retries', '1']);
    expect(down.exitCode).toBe(3);
    for (const run of [r, dry, rejected, down]) expect(leaks(run.stdout + run.stderr)).toEqual([]);
  });

  it('credentials in the URL and basic_auth together are refused: exit 2, one line', async () => {
    const auth = encodeURIComponent('["other","Other-pass-1"]');
    const r = await bridge(['copy', fixture('cred2.ndjson', 1), `http://${userinfo}@127.0.0.1:1/in?basic_auth=${auth}`]);
    expect(r.exitCode).toBe(2);
    expect(lines(r.stderr).filter((l) => / error: /.test(l))).toEqual([expect.stringMatching(/error: .*user:password@.*basic_auth.*keep one/)]);
    expect(leaks(r.stderr + r.stdout)).toEqual([]);
    expect(r.stderr).not.toContain('Other-pass-1');
  });
});

describe('HTTP sink: the retries figure', () => {
  it('the summary says its retries count batches, not messages', async () => {
    const tries = new Map<number, number>();
    const t = await peer((h, n, res) => {
      tries.set(h.i, (tries.get(h.i) ?? 0) + 1);
      // Five messages of one batch fail once: one batch is retried, five messages are re-sent.
      res.writeHead(h.i < 5 && tries.get(h.i) === 1 ? 503 : 200);
      res.end();
    });
    const r = await bridge(['copy', fixture('count.ndjson', 10), t.url, '--progress', 'json']);
    expect(r.exitCode).toBe(0);
    const summary = lines(r.stderr).map((l) => JSON.parse(l) as Record<string, unknown>).find((o) => o.type === 'summary')!;
    expect(summary).toMatchObject({ retries: 1 });
    tries.clear();
    const plain = await bridge(['copy', fixture('count.ndjson', 10), t.url]);
    expect(plain.stderr).toMatch(/done: 10 rows .*, 1 batch retry;/);
  });
});
