import type { StatsHub, StatsSnapshot } from '../stats/hub.js';
import { bytes, num } from './format.js';
import { PlainReporter, type Reporter, type Summary } from './reporter.js';

type Bar = import('cli-progress').SingleBar;

/** `--progress bar`: one cli-progress bar on stderr, for terminals where the full view is unwanted. */
export class BarReporter implements Reporter {
  private bar: Bar | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly plain: PlainReporter;

  constructor(private readonly quiet: boolean) {
    this.plain = new PlainReporter({ quiet, progress: false, intervalMs: 5000 });
  }

  start(hub: StatsHub): void {
    this.plain.start(hub);
    if (this.quiet) return;
    void import('cli-progress').then(({ default: cp }) => {
      this.bar = new cp.SingleBar(
        { stream: process.stderr, format: 'bridge {command} [{bar}] {percentage}% | {value} rows | {rate} rows/s | {bytes} | ETA {eta_formatted}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 5000 },
        cp.Presets.shades_classic,
      );
      const s = hub.snapshot();
      this.bar.start(s.estimatedRows ?? 0, 0, { command: s.command, rate: '0', bytes: '0 B' });
      this.timer = setInterval(() => this.update(hub.snapshot()), 250);
      this.timer.unref();
    });
  }

  private update(s: StatsSnapshot): void {
    if (!this.bar) return;
    const secs = Math.max(0.001, (s.now - s.startedAt) / 1000);
    if (s.estimatedRows && s.estimatedRows > 0) this.bar.setTotal(Math.max(s.estimatedRows, s.rowsWritten));
    this.bar.update(s.rowsWritten, { command: s.command, rate: num(s.rowsWritten / secs), bytes: bytes(s.bytesWritten) });
  }

  warn(text: string): void {
    this.plain.warn(text);
  }

  info(text: string): void {
    this.plain.info(text);
  }

  finish(s: StatsSnapshot, summary: Summary): void {
    if (this.timer) clearInterval(this.timer);
    if (this.bar) {
      this.update(s);
      this.bar.stop();
    }
    this.plain.finish(s, summary);
  }
}
