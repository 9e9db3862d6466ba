import type { StatsHub } from '../stats/hub.js';
import type { ProgressMode, Reporter } from '../ui/reporter.js';
import { JsonReporter, PlainReporter } from '../ui/reporter.js';

/** Options every route command shares (commander's parsed flags). */
export interface CommonOpts {
  batchSize?: number;
  limit?: number;
  dryRun?: boolean;
  progress: ProgressMode;
  quiet?: boolean;
  srcOpt?: [string, string][];
  dstOpt?: [string, string][];
  maxRetries: number;
  readAhead: number;
  exitWhenDrained?: boolean;
  progressInterval: number;
  exclude?: string[];
  parallel?: number;
  /** --metrics host:port: Prometheus /metrics, /healthz and /readyz. */
  metrics?: string;
  [flag: string]: unknown;
}

/** A CI runner that hands us a pseudo-terminal still keeps a log: redrawn frames would fill it. */
function inCi(): boolean {
  return ['CI', 'CONTINUOUS_INTEGRATION'].some((k) => (process.env[k] ?? '') !== '' && process.env[k] !== '0' && process.env[k] !== 'false');
}

/** decisions §10: auto = the live view on a terminal, plain lines otherwise. */
export const progressMode = (o: CommonOpts): ProgressMode => (o.progress === 'auto' ? (process.stderr.isTTY && !inCi() ? 'tty' : 'plain') : o.progress);

/** The reporter of one route (`label`: one of several, its lines labelled); -q only errors. */
export async function makeReporter(o: CommonOpts, label?: string): Promise<Reporter> {
  const quiet = o.quiet === true;
  const mode = progressMode(o);
  if (label !== undefined) {
    // One route of several, without the live board (src/ui/live-board.ts): labelled lines.
    if (mode === 'json') return new JsonReporter({ quiet, intervalMs: o.progressInterval, label });
    return new PlainReporter({ quiet, progress: mode !== 'none', intervalMs: o.progressInterval, label });
  }
  if (mode === 'json') return new JsonReporter({ quiet, intervalMs: o.progressInterval });
  if (mode === 'tty' && !quiet) return new (await import('../ui/lazy-ink.js')).LazyInkReporter(quiet);
  if (mode === 'bar') return new (await import('../ui/bar-reporter.js')).BarReporter(quiet);
  return new PlainReporter({ quiet, progress: mode !== 'none', intervalMs: o.progressInterval });
}


/** --metrics: the server, and the hook that registers each route's stats with it (none without the flag). */
export async function metricsFor(o: CommonOpts): Promise<((name: string, hub: StatsHub) => void) | undefined> {
  if (o.metrics === undefined) return undefined;
  const { RouteMetrics } = await import('../stats/metrics.js');
  const { serveMetrics } = await import('../stats/metrics-server.js');
  const metrics = new RouteMetrics();
  const server = await serveMetrics(o.metrics, metrics);
  if (o.quiet !== true) process.stderr.write(`bridge: metrics at http://${server.address}/metrics (and /healthz, /readyz)\n`);
  return (name, hub) => metrics.add(name, hub);
}
