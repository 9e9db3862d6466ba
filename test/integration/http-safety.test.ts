import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lz4 from 'lz4-napi';
import zstd from 'zstd-napi';
import { bridge, parseLines, tempDir, writeNdjson } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';
import { serve } from '../helpers/serve.js';

/** Issue 13: the listener and the HTTP sink against hostile input and hostile peers. */
const dir = tempDir();
let pg: TestDb;
beforeAll(async () => {
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS t_safe; CREATE TABLE t_safe (id int PRIMARY KEY, name text NOT NULL)');
});
afterAll(async () => {
  await pg.close();
});
const sink = `${PG_URL}?table=t_safe&columns=auto`;
const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) => request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('the listener against hostile clients', () => {
  it('a 6 KB zstd body that expands to 200 MB gets 413 at max_body_bytes, not after decompressing it', async () => {
    const s = await serve(sink);
    const bomb = zstd.compress(Buffer.alloc(200 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(20_000);
    const r = await post(s.url, bomb, { 'content-encoding': 'zstd' });
    expect(r.statusCode).toBe(413);
    await r.body.dump();
    const lz = lz4.compressFrameSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const r2 = await post(s.url, lz, { 'content-encoding': 'lz4' });
    expect(r2.statusCode).toBe(413);
    await r2.body.dump();
    const ok = await post(s.url, zstd.compress(Buffer.from('{"id":1,"name":"small"}')), { 'content-encoding': 'zstd' });
    expect(ok.statusCode).toBe(204);
    expect((await s.stop()).exitCode).toBe(0);
  });

  it("Authorization: basic (lowercase scheme) with the right credentials is served; without them, 401 comes before 404 and 405", async () => {
    const s = await serve(sink, `path=/in&method=POST&basic_auth=${encodeURIComponent('["u","p4ssw0rd"]')}`);
    const good = Buffer.from('u:p4ssw0rd').toString('base64');
    const r = await post(`${s.url}/in`, '{"id":2,"name":"x"}', { authorization: `basic ${good}` });
    expect(r.statusCode).toBe(204);
    for (const [url, method] of [[`${s.url}/elsewhere`, 'POST'], [`${s.url}/in`, 'GET']] as const) {
      const anon = await request(url, { method });
      expect(anon.statusCode).toBe(401);
      await anon.body.dump();
    }
    const wrongPath = await request(`${s.url}/elsewhere`, { method: 'POST', headers: { authorization: `Basic ${good}` } });
    expect(wrongPath.statusCode).toBe(404);
    await wrongPath.body.dump();
    expect((await s.stop()).exitCode).toBe(0);
  });

  it('Accept-Encoding q-values rank codecs: zstd;q=0.1, gzip;q=0.9 answers gzip', async () => {
    await pg.exec("DROP TABLE IF EXISTS t_users_safe; CREATE TABLE t_users_safe (id int PRIMARY KEY, bio text); INSERT INTO t_users_safe VALUES (1, repeat('x', 5000))");
    const s = await serve(`${PG_URL}?table=t_users_safe&lookup_query=${encodeURIComponent('SELECT * FROM t_users_safe WHERE id IN (${payload:id})')}`, 'compression_enabled=true');
    const r = await post(s.url, '{"id":1}', { 'accept-encoding': 'zstd;q=0.1, gzip;q=0.9' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    await r.body.dump();
    expect((await s.stop()).exitCode).toBe(0);
  });

  it('a message-id of 32 decimal digits crosses two bridges unchanged (the 32-hex form is hex)', async () => {
    const id = '00000000000000000000000000012345';
    const file = path.join(dir, 'ids.ndjson');
    const s = await serve(`file://${file}?format=envelope`);
    const r = await post(s.url, '{"a":1}', { 'message-id': id });
    expect(r.statusCode).toBe(204);
    expect((await s.stop()).exitCode).toBe(0);
    expect((parseLines(readFileSync(file, 'utf8'))[0] as { id: string }).id).toBe(id);
  });

  it('fire_and_forget without --dead-letter: a message the sink rejects is warned about and counted, nothing stays in flight', async () => {
    const s = await serve(sink, 'fire_and_forget=true', ['--progress', 'json', '--progress-interval', '200']);
    const ok = await post(s.url, '{"id":10,"name":"fine"}');
    const bad = await post(s.url, '{"id":11}');
    expect([ok.statusCode, bad.statusCode]).toEqual([202, 202]);
    await new Promise((r) => setTimeout(r, 800));
    const { exitCode, stderr } = await s.stop();
    expect(exitCode).toBe(0);
    expect(stderr).toMatch(/\(answered 202\) was rejected by the sink and is dropped: .*null value in column/);
    const objs = stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = objs.find((o) => o.type === 'summary')!;
    expect(summary).toMatchObject({ rows: 1, in_flight: 0 });
    expect((summary.requests as { statuses: Record<string, number> }).statuses['rejected after 202']).toBe(1);
  });

  it('fire_and_forget with spool_dir: kill -9 after 202s, before the sink wrote them, loses none (restart writes them once)', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_spool; CREATE TABLE t_spool (id int, name text)');
    const blocker = await postgres();
    // The sink cannot write until the lock goes: every 202 below is answered before any row exists.
    await blocker.exec('BEGIN; LOCK TABLE t_spool IN ACCESS EXCLUSIVE MODE');
    const query = `fire_and_forget=true&spool_dir=${encodeURIComponent(path.join(dir, 'spool'))}`;
    const dst = `${PG_URL}?table=t_spool&columns=auto`;
    const s = await serve(dst, query);
    const codes = await Promise.all(Array.from({ length: 50 }, (_, i) => post(s.url, JSON.stringify({ id: i, name: `n${i}` })).then((r) => r.statusCode)));
    expect(codes.every((c) => c === 202)).toBe(true);
    s.proc.kill('SIGKILL');
    await s.proc;
    // The killed process's blocked INSERT would still commit once the lock goes; end it as a crash of the whole host would.
    await blocker.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%t_spool%'");
    await blocker.exec('COMMIT');
    await blocker.close();
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_spool')).toEqual([{ n: 0 }]);
    const again = await serve(dst, query);
    const { exitCode, stderr } = await again.stop();
    expect(exitCode).toBe(0);
    expect(stderr).toContain('spool: 50 messages accepted before the last stop are written first');
    const ids = (await pg.rows('SELECT id FROM t_spool ORDER BY id')).map((r) => Number(r.id));
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Confirmed, so a third start replays nothing.
    const third = await serve(dst, query);
    expect((await third.stop()).stderr).not.toContain('spool:');
  });

  it('SIGTERM answers the requests in flight before closing (no empty replies)', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_slow; CREATE TABLE t_slow (id int PRIMARY KEY, name text)');
    await pg.exec(`CREATE OR REPLACE FUNCTION t_slow_f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$;
      CREATE TRIGGER t_slow_t BEFORE INSERT ON t_slow FOR EACH STATEMENT EXECUTE FUNCTION t_slow_f()`);
    const s = await serve(`${PG_URL}?table=t_slow&columns=auto`);
    const pending = Array.from({ length: 20 }, (_, i) => post(s.url, JSON.stringify({ id: i, name: 'n' })).then((r) => r.statusCode, (e: Error) => e.message));
    await new Promise((r) => setTimeout(r, 150));
    const stopped = s.stop();
    const codes = await Promise.all(pending);
    expect((await stopped).exitCode).toBe(0);
    const rows = Number((await pg.rows('SELECT count(*)::int AS n FROM t_slow'))[0]!.n);
    expect(codes.every((c) => c === 204 || c === 503)).toBe(true);
    expect(codes.filter((c) => c === 204)).toHaveLength(rows);
  });
});

describe('the HTTP sink against config mistakes and hostile peers', () => {
  it('an invalid custom_headers name or value is a config error before anything is sent', async () => {
    const src = writeNdjson(dir, 'one.ndjson', [{ a: 1 }]);
    for (const h of ['{"X Api Key":"v"}', '{"x-key":"line\\nbreak"}']) {
      const r = await bridge(['copy', src, `http://127.0.0.1:9/x?custom_headers=${encodeURIComponent(h)}`], { timeout: 20_000 });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/custom_headers (name|value)/);
    }
  });

  it('a peer that echoes the request headers in its error: no password, Authorization or header value in any output', async () => {
    const peer = http.createServer((req, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`bad request; you sent ${JSON.stringify(req.headers)}`);
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', () => r()));
    const port = (peer.address() as AddressInfo).port;
    const src = writeNdjson(dir, 'echo.ndjson', [{ a: 1 }, { a: 2 }]);
    const dead = path.join(dir, 'echo-dead.ndjson');
    const target = `http://127.0.0.1:${port}/x?basic_auth=${encodeURIComponent('["svc","Hunter2Pass"]')}&custom_headers=${encodeURIComponent('{"x-api-key":"Ak_9f8e7d6c5b"}')}`;
    const secrets = ['Hunter2Pass', Buffer.from('svc:Hunter2Pass').toString('base64'), 'Ak_9f8e7d6c5b'];
    for (const extra of [[], ['--progress', 'json'], ['--dead-letter', `file://${dead}`]]) {
      const r = await bridge(['copy', src, target, ...extra]);
      for (const s of secrets) expect(r.stderr + r.stdout).not.toContain(s);
    }
    const stored = readFileSync(dead, 'utf8');
    expect(stored).toContain('bad request');
    for (const s of secrets) expect(stored).not.toContain(s);
    peer.close();
  });

  it('compression=lz4 warns that only a bridge reads it; refused by a peer (415), the summary counts what was delivered', async () => {
    let n = 0;
    const peer = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        n++;
        res.writeHead(req.headers['content-encoding'] === 'lz4' ? 415 : 204);
        res.end();
      });
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', () => r()));
    const port = (peer.address() as AddressInfo).port;
    const rows = Array.from({ length: 60 }, (_, i) => ({ i, pad: i === 59 ? 'x'.repeat(5000) : '' }));
    const r = await bridge(['copy', writeNdjson(dir, 'lz.ndjson', rows), `http://127.0.0.1:${port}/?compression=lz4&batch_concurrency=1`]);
    expect(r.stderr).toContain('compression=lz4 is not an HTTP content coding');
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/failed: 59 rows/);
    expect(n).toBe(60);
    peer.close();
  });
});
