import type { Worker } from 'node:worker_threads';
import { redact } from '../config/redact.js';
import type { StatsHub, StatsSnapshot } from '../stats/hub.js';
import type { BoardRow } from './ink/board.js';
import type { Reporter, Summary } from './reporter.js';
import { startViewWorker } from './view-worker.js';

/**
 * The live view of several routes (a table list, a route file): one row per route, drawn by the
 * Ink worker (src/ui/ink/worker.tsx) from snapshots posted four times a second. Each route gets a
 * Reporter; lines (warnings, errors, summaries) scroll above the rows.
 */
export class LiveBoard {
  private readonly worker: Worker;
  private ready = false;
  private readonly pending: unknown[] = [];
  private readonly rows: { name: string; hub?: StatsHub; final?: StatsSnapshot; code?: number }[];
  private readonly timer: NodeJS.Timeout;

  constructor(
    names: string[],
    private readonly title: string,
  ) {
    this.rows = names.map((name) => ({ name }));
    this.worker = startViewWorker(() => {
      this.ready = true;
      for (const p of this.pending.splice(0)) this.worker.postMessage(p);
    });
    this.timer = setInterval(() => this.post('board'), 250);
    this.timer.unref();
  }

  private send(message: unknown): void {
    if (this.ready) this.worker.postMessage(message);
    else this.pending.push(message);
  }

  private snapshotRows(): BoardRow[] {
    return this.rows.map((r) => ({ name: r.name, snap: r.final ?? r.hub?.snapshot(), ...(r.code !== undefined ? { code: r.code } : {}) }));
  }

  private post(type: 'board' | 'board-final'): void {
    this.send({ type, title: this.title, rows: this.snapshotRows() });
  }

  /** Warnings and notes, kept to be printed as lines if the view never comes up (a short run). */
  readonly notes: string[] = [];

  private line(text: string, note = true): void {
    if (note) this.notes.push(redact(text));
    this.send({ type: 'board-line', text: redact(text) });
  }

  /** The reporter of one route: its hub feeds its row; its lines are labelled with its name. */
  reporter(name: string): Reporter {
    const row = this.rows.find((r) => r.name === name)!;
    return {
      start: (hub) => {
        row.hub = hub;
        hub.on('warning', (t) => this.line(`bridge [${name}]: warning: ${t}`));
        hub.on('info', (t) => this.line(`bridge [${name}]: ${t}`));
      },
      warn: (t) => this.line(`bridge [${name}]: warning: ${t}`),
      info: (t) => this.line(`bridge [${name}]: ${t}`),
      finish: (snapshot: StatsSnapshot, summary: Summary) => {
        row.final = snapshot;
        row.code = summary.exitCode;
        if (summary.error) this.line(`bridge [${name}]: error: ${summary.error.message}${summary.error.hint ? ` (${summary.error.hint})` : ''}`, false);
      },
    };
  }

  /** Draws the last frame (every route's final figures) and lets the worker go; false when the view never came up (a short run). */
  async close(): Promise<boolean> {
    clearInterval(this.timer);
    if (!this.ready) {
      await this.worker.terminate();
      return false;
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2000);
      t.unref();
      this.worker.on('message', (m: { type: string }) => {
        if (m.type === 'done') {
          clearTimeout(t);
          resolve();
        }
      });
      this.post('board-final');
    });
    await this.worker.terminate();
    return true;
  }
}
