import { redact } from '../config/redact.js';
import { EXIT } from '../core/errors.js';
import type { StatsHub, StatsSnapshot } from '../stats/hub.js';
import { bytes, duration, num } from '../ui/format.js';
import type { Reporter, Summary } from '../ui/reporter.js';
import { runCommand } from './route.js';
import type { NamedRoute } from './table-routes.js';

export interface RouteOutcome {
  name: string;
  /** undefined: not started (the run was stopped first). */
  code: number | undefined;
  snapshot?: StatsSnapshot;
  summary?: Summary;
}

/** Exit codes from worst to mildest: a bug, an endpoint unreachable, rejected values, a configuration mistake. */
const SEVERITY: number[] = [EXIT.fatal, EXIT.connect, EXIT.rejected, EXIT.config];

/** The exit code of a run of several routes: the worst of theirs (docs/guarantees.md "Exit codes"). */
export function worstExit(codes: number[]): number {
  for (const c of SEVERITY) if (codes.includes(c)) return c;
  return codes.find((c) => c !== 0) ?? 0;
}

/**
 * Runs routes, `parallel` at a time (each with its own stats, reporter, checkpoint and exit code),
 * in the order given. A failed route does not stop the others; once `stop` fires, the routes
 * running finish their batch in flight and the ones not started stay so.
 */
export async function runMany(routes: NamedRoute[], parallel: number, reporterFor: (name: string) => Reporter | Promise<Reporter>, stop: AbortSignal, onHub?: (name: string, hub: StatsHub) => void, onDone?: (route: NamedRoute, outcome: RouteOutcome) => void): Promise<RouteOutcome[]> {
  const outcomes: RouteOutcome[] = routes.map((r) => ({ name: r.name, code: undefined }));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < routes.length && !stop.aborted) {
      const i = next++;
      const inner = await reporterFor(routes[i]!.name);
      const capture: Reporter = {
        start: (hub) => inner.start(hub),
        warn: (t) => inner.warn(t),
        info: (t) => inner.info(t),
        finish: (snapshot, summary) => {
          Object.assign(outcomes[i]!, { snapshot, summary });
          inner.finish(snapshot, summary);
          capture.closing = inner.closing;
        },
      };
      outcomes[i]!.code = await runCommand(routes[i]!.args, capture, stop, onHub && ((hub) => onHub(routes[i]!.name, hub)));
      await capture.closing;
      onDone?.(routes[i]!, outcomes[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, routes.length)) }, worker));
  return outcomes;
}

/** A copy stopped by a signal before it drained its source: it did not finish (a tail's stop is its end). */
const cutShort = (o: RouteOutcome): boolean => o.code === 0 && o.summary?.stopped === true && o.snapshot?.command === 'copy';

/** A route that ended by itself with exit 0 (not failed, not stopped part-way, not left unstarted). */
export const finished = (o: RouteOutcome): boolean => o.code === 0 && o.summary?.ok === true && !cutShort(o);

/**
 * The exit code of a run of several routes: the worst of theirs (docs/guarantees.md "Exit codes"); 130 when a
 * signal stopped it before every copy finished (a copy stopped part-way, or one never started),
 * so that an interrupted migration never looks like a finished one.
 */
export function exitOf(outcomes: RouteOutcome[]): number {
  const worst = worstExit(outcomes.map((o) => o.code ?? 0));
  if (worst !== 0) return worst;
  return outcomes.some((o) => o.code === undefined || cutShort(o)) ? 130 : 0;
}

/** The line after the routes' own summaries: how many finished, were stopped, failed or never started, and the rows. */
export function totalLine(command: string, what: string, outcomes: RouteOutcome[], elapsedMs: number): string {
  const done = outcomes.filter(finished);
  const stopped = outcomes.filter(cutShort);
  const failed = outcomes.filter((o) => o.code !== undefined && o.code !== 0);
  const waiting = outcomes.filter((o) => o.code === undefined);
  const rows = outcomes.reduce((n, o) => n + (o.snapshot?.rowsWritten ?? 0), 0);
  const moved = outcomes.reduce((n, o) => n + (o.snapshot?.bytesWritten ?? 0), 0);
  const parts = [`${done.length} done`];
  if (stopped.length) parts.push(`${stopped.length} stopped part-way (${stopped.map((o) => o.name).join(', ')})`);
  if (failed.length) parts.push(`${failed.length} failed (${failed.map((o) => `${o.name}: exit ${o.code}`).join(', ')})`);
  if (waiting.length) parts.push(`${waiting.length} not started (stopped first: ${waiting.map((o) => o.name).join(', ')})`);
  return redact(`bridge ${command}: ${outcomes.length} ${outcomes.length === 1 ? what.replace(/s$/, '') : what}: ${parts.join(', ')}; ${num(rows)} rows, ${bytes(moved)} in ${duration(elapsedMs)}`);
}
