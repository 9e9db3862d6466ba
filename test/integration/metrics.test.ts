import http from 'node:http';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { freePort } from '../helpers/object-stores.js';
import { serve } from '../helpers/serve.js';
import { postgres, PG_URL, type TestDb } from '../helpers/databases.js';

/** --metrics: Prometheus text scraped from a running tail and serve, /healthz and /readyz. */
const SECRET = 'Mx7-metrics-SECRET-9902';
const get = async (url: string): Promise<{ status: number; body: string; type: string }> => {
  const r = await fetch(url);
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type') ?? '' };
};
/** The value of one sample line, e.g. `bridge_rows_written_total{route="main"}`. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('metrics and health', () => {
  const dir = tempDir();
  let pg: TestDb;
  beforeAll(async () => {
    pg = await postgres();
    await pg.exec('DROP TABLE IF EXISTS m_events, bridge_cursors_m_events; CREATE TABLE m_events (id int PRIMARY KEY, v text); INSERT INTO m_events SELECT g, \'v\' || g FROM generate_series(1, 120) g');
  });
  afterAll(async () => {
    await pg.close();
  });

  it('a running tail: rows, position, pools, route state; healthz and readyz; no secret', async () => {
    const port = await freePort();
    const src = `${PG_URL.replace('postgres://postgres@', 'postgres://postgres:${M_PASS}@')}?table=m_events&cursor_column=id&cursor_id=metrics`;
    const p = spawnBridge(['tail', src, `sqlite://${path.join(dir, 'm.db')}?table=m_events&columns=auto&auto_create_table=true`, '--metrics', `127.0.0.1:${port}`, '--progress', 'none'], { env: { M_PASS: SECRET } });
    const base = `http://127.0.0.1:${port}`;
    try {
      const first = await waitFor(async () => {
        const m = await get(`${base}/metrics`).catch(() => undefined);
        // The position moves when the batch is acknowledged, just after its rows are counted.
        return m && sample(m.body, 'bridge_rows_written_total{route="main"}') === 120 && sample(m.body, 'bridge_position{route="main"}') === 120 ? m : undefined;
      });
      expect(first.type).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(first.body).toContain('# TYPE bridge_rows_written_total counter');
      expect(sample(first.body, 'bridge_position{route="main"}')).toBe(120);
      expect(sample(first.body, 'bridge_route_state{route="main",state="running"}')).toBe(1);
      expect(sample(first.body, 'bridge_pool_connections{route="main",side="source",state="max"}')).toBe(10);
      expect(first.body).toMatch(/^process_resident_memory_bytes \d+/m);
      await pg.exec("INSERT INTO m_events SELECT g, 'w' || g FROM generate_series(121, 150) g");
      await waitFor(async () => sample((await get(`${base}/metrics`)).body, 'bridge_position{route="main"}') === 150);
      expect(sample((await get(`${base}/metrics`)).body, 'bridge_caught_up{route="main"}')).toBe(1);
      expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
      const ready = await get(`${base}/readyz`);
      expect({ status: ready.status, body: JSON.parse(ready.body) as unknown }).toEqual({ status: 200, body: { ready: true, routes: { main: 'running' } } });
      expect((await get(`${base}/nope`)).status).toBe(404);
      expect(first.body).not.toContain(SECRET);
    } finally {
      p.kill('SIGTERM');
    }
    const r = await p;
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`bridge: metrics at http://127\\.0\\.0\\.1:${port}/metrics`));
    expect(r.stderr).not.toContain(SECRET);
  }, 60_000);

  it('serve: requests by status and the latency histogram', async () => {
    const port = await freePort();
    const s = await serve(`file://${path.join(dir, 'served.ndjson')}`, '', ['--metrics', `127.0.0.1:${port}`]);
    try {
      for (let i = 0; i < 5; i++) expect((await fetch(`${s.url}/`, { method: 'POST', body: JSON.stringify({ i }) })).status).toBe(204);
      const m = (await get(`http://127.0.0.1:${port}/metrics`)).body;
      expect(sample(m, 'bridge_http_requests_total{route="main",status="204"}')).toBe(5);
      expect(m).toContain('# TYPE bridge_http_request_duration_seconds histogram');
      expect(sample(m, 'bridge_http_request_duration_seconds_count{route="main"}')).toBe(5);
      expect(sample(m, 'bridge_http_request_duration_seconds_bucket{route="main",le="+Inf"}')).toBe(5);
      expect(sample(m, 'bridge_http_request_duration_seconds_bucket{route="main",le="10"}')).toBe(5);
      expect(sample(m, 'bridge_rows_written_total{route="main"}')).toBe(5);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('readyz says 503 while a route is stuck retrying, and 200 once it writes again', async () => {
    let status = 503;
    const sinkServer = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(status);
        res.end();
      });
    });
    await new Promise<void>((r) => sinkServer.listen(0, '127.0.0.1', r));
    const sinkPort = (sinkServer.address() as { port: number }).port;
    const port = await freePort();
    const file = path.join(dir, 'routes.yaml');
    writeFileSync(file, `metrics: 127.0.0.1:${port}\nroutes:\n  push:\n    mode: tail\n    source: ${PG_URL}?table=m_events&cursor_column=id&cursor_id=push\n    sink: http://127.0.0.1:${sinkPort}/in\n`);
    const p = spawnBridge(['run', file, '--progress', 'none']);
    const base = `http://127.0.0.1:${port}`;
    try {
      const stuck = await waitFor(async () => {
        const r = await get(`${base}/readyz`).catch(() => undefined);
        return r?.status === 503 && r.body.includes('retrying') ? r : undefined;
      });
      expect(JSON.parse(stuck.body)).toEqual({ ready: false, routes: { push: 'retrying' } });
      expect(sample((await get(`${base}/metrics`)).body, 'bridge_retries_total{route="push"}')).toBeGreaterThan(0);
      status = 200;
      await waitFor(async () => (await get(`${base}/readyz`)).status === 200, 30_000);
      await waitFor(async () => sample((await get(`${base}/metrics`)).body, 'bridge_rows_written_total{route="push"}') === 150, 30_000);
    } finally {
      p.kill('SIGTERM');
      await p;
      sinkServer.close();
    }
  }, 60_000);
});
