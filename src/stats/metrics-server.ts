import http from 'node:http';
import { configError } from '../core/errors.js';
import type { RouteMetrics } from './metrics.js';

/** `host:port`, `:port` (every interface) or a bare port (loopback only). */
function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:(\[[^\]]+\]|[^:]*):)?(\d{1,5})$/.exec(text.replace(/^https?:\/\//, ''));
  if (!m || Number(m[2]) > 65535) throw configError(`--metrics ${text} is not host:port (e.g. 0.0.0.0:9464, :9464 or 9464)`);
  const host = m[1] === undefined ? '127.0.0.1' : m[1] === '' ? '0.0.0.0' : m[1].replace(/^\[|\]$/g, '');
  return { host, port: Number(m[2]) };
}

/**
 * `--metrics`: Prometheus text at /metrics (bridge_* from the routes' stats, and the process'
 * own from prom-client's defaults), /healthz (the process answers) and /readyz (every route
 * connected and none retrying: 200, else 503 with each route's state). Nothing here holds a secret:
 * routes are labelled by name, never by URL.
 */
export async function serveMetrics(listen: string, metrics: RouteMetrics): Promise<{ address: string; close(): Promise<void> }> {
  const { host, port } = parseListen(listen);
  const { Registry, collectDefaultMetrics } = await import('prom-client');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const f of metrics.families()) registry.registerMetric(f as never);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'GET /metrics, /healthz or /readyz\n');
    if (path === '/healthz') return send(200, 'text/plain', 'ok\n');
    if (path === '/readyz') {
      const r = metrics.readiness();
      return send(r.ready ? 200 : 503, 'application/json', JSON.stringify(r) + '\n');
    }
    if (path !== '/metrics') return send(404, 'text/plain', 'GET /metrics, /healthz or /readyz\n');
    registry.metrics().then(
      (body) => send(200, registry.contentType, body),
      (e: unknown) => send(500, 'text/plain', `${(e as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(configError(`--metrics cannot listen on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'the address is in use' : e.message}`)));
    server.listen(port, host, resolve);
  });
  // A scrape in progress never keeps a finished copy alive.
  server.unref();
  const a = server.address() as { address: string; port: number };
  return { address: `${a.address}:${a.port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
