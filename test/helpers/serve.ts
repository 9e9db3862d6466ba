import type { ResultPromise } from 'execa';
import { spawnBridge, waitFor } from './bridge.js';
import { freePort } from './object-stores.js';

export interface Served {
  port: number;
  url: string;
  proc: ResultPromise;
  stop(): Promise<{ exitCode: number | undefined; stderr: string }>;
}

/** Starts `bridge serve` on a free port and waits until it listens. */
export async function serve(dst: string, query = '', extra: string[] = [], scheme = 'http'): Promise<Served> {
  const port = await freePort();
  const proc = spawnBridge(['serve', `127.0.0.1:${port}${query ? `?${query}` : ''}`, dst, '--progress', 'json', '--progress-interval', '60000', ...extra]);
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor(async () => (err.includes('listening on') ? true : proc.exitCode !== null ? Promise.reject(new Error(`serve exited: ${err}`)) : false), 20_000, 20);
  return {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    proc,
    stop: async () => {
      proc.kill('SIGTERM');
      const r = await proc;
      return { exitCode: r.exitCode, stderr: err };
    },
  };
}
