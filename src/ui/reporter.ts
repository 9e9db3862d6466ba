import { redact } from '../config/redact.js';
import { progressRatio, type StatsHub, type StatsSnapshot } from '../stats/hub.js';
import { bytes, duration, elapsedMs, num, pool, rate } from './format.js';

export type ProgressMode = 'auto' | 'tty' | 'plain' | 'json' | 'none' | 'bar';

export interface Summary {
  ok: boolean;
  dryRun?: boolean;
  exitCode: number;
  stopped: boolean;
  error?: { code: string; message: string; hint?: string | undefined; messageId?: string | undefined };
}

/** Renders engine stats; never drives the work. All text passes through `redact`. */
export interface Reporter {
  start(hub: StatsHub): void;
  warn(text: string): void;
  info(text: string): void;
  finish(snapshot: StatsSnapshot, summary: Summary): void;
  /** Settles once everything the reporter prints is out (a view on another thread). */
  closing?: Promise<void> | undefined;
  /**
   * False when nothing it prints shows the source's row estimate: the estimate is then not asked
   * (SQLite has no statistics, so it is a COUNT(*) over the whole table before the first row).
   */
  readonly showsEstimate?: boolean;
}

const write = (line: string): void => {
  process.stderr.write(redact(line) + '\n');
};

/**
 * Progress lines every `intervalMs` while the route runs. They end when it is done or failed: its
 * source and sinks then close (a while, for a pool or a slot), and a line from then would show a
 * tail no longer caught up; the summary is what follows.
 */
function progressTimer(hub: StatsHub, intervalMs: number, tick: () => void): NodeJS.Timeout {
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  hub.on('state', (state) => {
    if (state === 'done' || state === 'failed') clearInterval(timer);
  });
  return timer;
}

function checkpointText(s: StatsSnapshot): string {
  return (s.checkpoint ? `; checkpoint ${s.checkpoint}` : '') + (s.delivery ? `; delivery ${s.delivery}` : '');
}

/** Plain lines for cron and CI: one progress line every few seconds, then a summary. */
export class PlainReporter implements Reporter {
  private timer: NodeJS.Timeout | undefined;
  private lastRows = 0;
  private lastAt = Date.now();

  constructor(
    private readonly opts: { quiet: boolean; progress: boolean; intervalMs: number; label?: string },
  ) {}

  get showsEstimate(): boolean {
    return this.opts.progress && !this.opts.quiet;
  }

  /** ` [orders]` when this is one route of several (a table list, a route file). */
  private get tag(): string {
    return this.opts.label === undefined ? '' : ` [${this.opts.label}]`;
  }

  start(hub: StatsHub): void {
    hub.on('warning', (t) => this.warn(t));
    hub.on('info', (t) => this.info(t));
    if (!this.opts.progress || this.opts.quiet) return;
    this.timer = progressTimer(hub, this.opts.intervalMs, () => this.line(hub.snapshot()));
  }

  private line(s: StatsSnapshot): void {
    const dt = Math.max(1, s.now - this.lastAt);
    const now = ((s.rowsWritten - this.lastRows) * 1000) / dt;
    this.lastRows = s.rowsWritten;
    this.lastAt = s.now;
    const parts = [`${num(s.rowsWritten)} rows`, `${num(now)} rows/s (avg ${num(rate(s))})`, bytes(s.bytesWritten)];
    const ratio = progressRatio(s);
    if (ratio !== undefined) parts.push(`${(100 * ratio).toFixed(1)}% of ~${num(s.estimatedRows!)}`);
    if (s.caughtUp) parts.push('caught up, waiting for new rows');
    if (s.position) parts.push(`at ${s.position}`);
    if (s.slotLagBytes !== undefined) parts.push(`slot lag ${bytes(s.slotLagBytes)}`);
    if (s.requests) parts.push(`${num(s.requests.requests)} requests (${Object.entries(s.requests.statuses).map(([k, v]) => `${k}: ${num(v)}`).join(', ') || 'none answered'})`);
    parts.push(`in flight ${s.inFlight}`);
    if (s.waitingOn) parts.push(`waiting on ${s.waitingOn}`);
    if (s.retries) parts.push(`batch retries ${s.retries}`);
    if (s.sourcePool) parts.push(`source pool ${pool(s.sourcePool)}`);
    if (s.sinkPool) parts.push(`sink pool ${pool(s.sinkPool)}`);
    if (s.state !== 'running') parts.push(s.state);
    write(`bridge ${s.command}${this.tag}: ${parts.join(', ')}`);
  }

  warn(text: string): void {
    if (!this.opts.quiet) write(`bridge${this.tag}: warning: ${text}`);
  }

  info(text: string): void {
    if (!this.opts.quiet) write(`bridge${this.tag}: ${text}`);
  }

  finish(s: StatsSnapshot, summary: Summary): void {
    if (this.timer) clearInterval(this.timer);
    if (summary.error) {
      const hint = summary.error.hint ? ` (${summary.error.hint})` : '';
      write(`bridge${this.tag}: error: ${summary.error.message}${hint}`);
    }
    if (this.opts.quiet) return;
    const ms = elapsedMs(s);
    if (summary.dryRun && summary.ok) return write(`bridge ${s.command}${this.tag}: dry run: connected and planned; nothing was written`);
    const verb = summary.ok ? (summary.stopped ? 'stopped' : 'done') : 'failed';
    const moved = `${num(s.rowsWritten)} rows in ${duration(ms)} (${num(rate(s))} rows/s, ${bytes(s.bytesWritten)})`;
    const extra = [s.retries ? `${s.retries} batch ${s.retries === 1 ? 'retry' : 'retries'}` : '', s.dropped ? `${num(s.dropped)} fields dropped` : '', s.lossy ? `${num(s.lossy)} values converted lossily` : '', s.deadLettered ? `${num(s.deadLettered)} dead-lettered` : '']
      .filter(Boolean)
      .join(', ');
    write(`bridge ${s.command}${this.tag}: ${verb}: ${moved}${extra ? `, ${extra}` : ''}${s.position ? `; last position ${s.position}` : ''}${checkpointText(s)}`);
  }
}

/** One JSON object per line on stderr: progress, warnings, and the summary. */
export class JsonReporter implements Reporter {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: { quiet: boolean; intervalMs: number; label?: string }) {}

  private emit(obj: Record<string, unknown>): void {
    write(JSON.stringify({ ts: new Date().toISOString(), ...(this.opts.label === undefined ? {} : { route: this.opts.label }), ...obj }));
  }

  private stats(s: StatsSnapshot): Record<string, unknown> {
    return {
      command: s.command,
      source: s.source,
      sink: s.sink,
      state: s.state,
      rows: s.rowsWritten,
      rows_read: s.rowsRead,
      batches: s.batches,
      bytes: s.bytesWritten,
      elapsed_ms: elapsedMs(s),
      rows_per_s: Math.round(rate(s)),
      position: s.position ?? null,
      checkpoint: s.checkpoint ?? null,
      delivery: s.delivery ?? null,
      estimated_rows: s.estimatedRows,
      caught_up: s.caughtUp,
      in_flight: s.inFlight,
      waiting_on: s.waitingOn ?? null,
      retries: s.retries,
      dead_lettered: s.deadLettered,
      dropped_fields: s.dropped,
      lossy_values: s.lossy,
      slot_lag_bytes: s.slotLagBytes ?? null,
      requests: s.requests ? { requests: s.requests.requests, statuses: s.requests.statuses } : null,
      source_pool: s.sourcePool ?? null,
      sink_pool: s.sinkPool ?? null,
    };
  }

  start(hub: StatsHub): void {
    hub.on('warning', (t) => this.warn(t));
    hub.on('info', (t) => this.info(t));
    if (this.opts.quiet) return;
    this.timer = progressTimer(hub, this.opts.intervalMs, () => this.emit({ type: 'progress', ...this.stats(hub.snapshot()) }));
  }

  warn(text: string): void {
    if (!this.opts.quiet) this.emit({ type: 'warning', message: text });
  }

  info(text: string): void {
    if (!this.opts.quiet) this.emit({ type: 'info', message: text });
  }

  finish(s: StatsSnapshot, summary: Summary): void {
    if (this.timer) clearInterval(this.timer);
    if (summary.error) this.emit({ type: 'error', exit_code: summary.exitCode, ...summary.error });
    this.emit({ type: 'summary', ok: summary.ok, exit_code: summary.exitCode, stopped: summary.stopped, ...this.stats(s) });
  }
}
