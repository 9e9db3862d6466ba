import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/bridge.js';
import { freePort } from '../helpers/object-stores.js';
import { serve } from '../helpers/serve.js';

/** `bridge serve` behind nginx as a reverse proxy with pooled upstream connections, on loopback. */
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

async function startNginx(upstreamPort: number): Promise<{ url: string; stop(): void }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bridge-nginx-'));
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, d));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off; master_process off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream bridge { server 127.0.0.1:${upstreamPort}; keepalive 32; keepalive_timeout 60s; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://bridge; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  const proc: ChildProcess = spawn(NGINX!, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
  await waitFor(async () => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{"probe":true}', headers: { 'content-type': 'application/json' } }).then(() => true, () => false), 10_000, 50);
  return { url: `http://127.0.0.1:${port}/`, stop: () => proc.kill('SIGTERM') };
}

/** Established TCP connections to `port` on loopback, as the kernel lists them. */
const connectionsTo = (port: number): number => execFileSync('ss', ['-Htn', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' }).split('\n').filter(Boolean).length;

describe.skipIf(!NGINX)(`behind nginx${NGINX ? '' : ' (skipped: nginx is not installed; apt-get install nginx-light)'}`, () => {
  it('bursts of 40 POSTs 6.5 s apart through nginx keeping 32 idle upstream connections: the connections stay open between bursts (Node closed them after 5 s + 1 s), no 502, every request lands once', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'bridge-proxy-')), 'out.ndjson');
    const s = await serve(`file://${file}`);
    const nginx = await startNginx(s.port);
    const statuses: number[] = [];
    const keptOpen: number[] = [];
    try {
      for (let burst = 0; burst < 4; burst++) {
        if (burst) {
          await new Promise((r) => setTimeout(r, 6500));
          keptOpen.push(connectionsTo(s.port));
        }
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) => fetch(nginx.url, { method: 'POST', body: JSON.stringify({ burst, i }), headers: { 'content-type': 'application/json' } }).then(async (r) => (await r.arrayBuffer(), r.status))),
        );
        statuses.push(...answers);
      }
    } finally {
      nginx.stop();
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(statuses.filter((st) => st !== 204)).toEqual([]);
    for (const n of keptOpen) expect(n).toBeGreaterThan(0);
    const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('burst'));
    expect(rows).toHaveLength(160);
  }, 60_000);
});
