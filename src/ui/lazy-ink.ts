import type { Worker } from 'node:worker_threads';
import type { StatsHub, StatsSnapshot } from '../stats/hub.js';
import { PlainReporter, type Reporter, type Summary } from './reporter.js';
import { startViewWorker } from './view-worker.js';

/**
 * The terminal view, rendered by a worker thread (src/ui/ink/worker.tsx): the pipeline's thread
 * only posts a snapshot four times a second and writes the frames it gets back to stderr.
 */
export class LazyInkReporter implements Reporter {
  private worker: Worker | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  private pending: { kind: 'warning' | 'info'; text: string }[] = [];
  private readonly plain: PlainReporter;
  private hub: StatsHub | undefined;

  constructor(private readonly quiet: boolean) {
    this.plain = new PlainReporter({ quiet, progress: false, intervalMs: 5000 });
  }

  start(hub: StatsHub): void {
    this.hub = hub;
    if (this.quiet) return this.plain.start(hub);
    this.worker = startViewWorker(() => {
      this.ready = true;
      this.post(hub);
      for (const l of this.pending.splice(0)) this.worker!.postMessage({ type: 'line', ...l });
    });
    hub.on('warning', (t) => this.line('warning', t));
    hub.on('info', (t) => this.line('info', t));
    this.timer = setInterval(() => this.post(hub), 250);
    this.timer.unref();
  }

  private post(hub: StatsHub): void {
    if (this.ready) this.worker!.postMessage({ type: 'snapshot', snap: hub.snapshot() });
  }

  private line(kind: 'warning' | 'info', text: string): void {
    if (this.ready) this.worker!.postMessage({ type: 'line', kind, text });
    else this.pending.push({ kind, text });
  }

  warn(text: string): void {
    if (this.worker) this.hub!.warn(text);
    else this.plain.warn(text);
  }

  info(text: string): void {
    if (this.worker) this.hub!.info(text);
    else this.plain.info(text);
  }

  finish(s: StatsSnapshot, summary: Summary): void {
    if (this.timer) clearInterval(this.timer);
    const w = this.worker;
    if (!w) return this.plain.finish(s, summary);
    // The summary prints after the worker's last frame; finish stays synchronous for the caller,
    // so the process waits for the worker through a pending promise (see waitForView).
    this.closing = new Promise<void>((resolve) => {
      const done = (): void => {
        void w.terminate();
        if (!this.ready) for (const l of this.pending.splice(0)) (l.kind === 'warning' ? this.plain.warn : this.plain.info).call(this.plain, l.text);
        this.plain.finish(s, summary);
        resolve();
      };
      if (!this.ready) return done();
      w.on('message', (m: { type: string }) => m.type === 'done' && done());
      w.postMessage({ type: 'final', snap: s });
      setTimeout(done, 2000).unref();
    });
  }

  closing: Promise<void> | undefined;
}
