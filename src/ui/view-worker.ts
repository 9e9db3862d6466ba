import { Worker } from 'node:worker_threads';
import { redact } from '../config/redact.js';

/**
 * Starts the Ink worker (src/ui/ink/worker.tsx): the frames it draws are written to stderr here,
 * and `onReady` runs once it listens. It never keeps the process alive.
 */
export function startViewWorker(onReady: () => void): Worker {
  // From dist/ui/ or bundled in dist/bundle/ (scripts/bundle.js), the worker is tsc's dist/ui/ink/worker.js.
  const worker = new Worker(new URL('../ui/ink/worker.js', import.meta.url), {
    workerData: { columns: process.stderr.columns || 100, rows: process.stderr.rows || 30 },
    // Ink draws only its last frame when it believes it runs in CI; the choice to draw live was made already.
    env: { ...process.env, NODE_ENV: 'production', CI: '0', CONTINUOUS_INTEGRATION: '0' },
  });
  worker.unref();
  worker.on('message', (m: { type: string; data?: string }) => {
    if (m.type === 'out') process.stderr.write(redact(m.data!));
    else if (m.type === 'ready') onReady();
  });
  return worker;
}
