import { Option, type Command } from 'commander';
import { redact } from '../config/redact.js';
import { configError } from '../core/errors.js';
import { PlainReporter } from '../ui/reporter.js';
import { nonNegativeInt, positiveInt } from './args.js';
import { makeReporter, metricsFor, progressMode, type CommonOpts } from './reporting.js';
import { describeFailure } from './route.js';
import { routesOfFile } from './run-file.js';
import { exitOf, runMany, totalLine } from './run-many.js';
import type { NamedRoute } from './table-routes.js';
import type { SchemaStep } from './migrate-schema.js';

/** A mistake found before any route starts: one line, its exit code. */
export function failEarly(e: unknown): never {
  const f = describeFailure(e);
  process.stderr.write(redact(`bridge: error: ${f.message}${f.hint ? ` (${f.hint})` : ''}`) + '\n');
  process.exit(f.exitCode);
}

/** Several routes in one process (a table list, a route file): labelled lines, a total, the worst exit code. */
export async function runSeveral(command: string, given: NamedRoute[], o: CommonOpts, what: string, stop: AbortSignal, onStop: (f: (sig: string) => void) => void, step?: SchemaStep): Promise<void> {
  const routes = step?.routes ?? given;
  const started = Date.now();
  onStop((sig) => process.stderr.write(`bridge: ${sig}: stopping after the batches in flight (again to quit at once)\n`));
  // On a terminal, one live board with a row per route; otherwise labelled lines per route.
  const board = progressMode(o) === 'tty' && o.quiet !== true ? new (await import('../ui/live-board.js')).LiveBoard(routes.map((r) => r.name), command) : undefined;
  const onHub = await metricsFor(o).catch(failEarly);
  await step?.before().catch(failEarly);
  const outcomes = await runMany(routes, o.parallel ?? 1, (name) => board?.reporter(name) ?? makeReporter(o, name), stop, onHub, step && ((r, x) => step.routeDone(r, x)));
  // A run shorter than the view's start-up ends before the board is drawn: its summaries as lines.
  if (board && !(await board.close())) {
    for (const line of board.notes) process.stderr.write(`${line}\n`);
    for (const x of outcomes) if (x.snapshot && x.summary) new PlainReporter({ quiet: false, progress: false, intervalMs: 0, label: x.name }).finish(x.snapshot, x.summary);
  }
  if (o.quiet !== true && o.progress !== 'json') process.stderr.write(totalLine(command, what, outcomes, Date.now() - started) + '\n');
  const code = exitOf(outcomes);
  // After a stop too: the indexes already building are waited for (a stopped run's foreign keys are not added).
  const last = step ? await step.after(outcomes).catch((e: unknown) => describeFailure(e).exitCode) : 0;
  process.exit(code || last);
}

/** `bridge run <file>`: the routes of a route file, all at once unless --parallel says otherwise. */
export function routeFileCommand(program: Command, run: (routes: NamedRoute[], o: CommonOpts) => Promise<void>): void {
  program
    .command('run')
    .description('run the routes of a route file (YAML): copies, tails and listeners in one process')
    .argument('<file>', 'route file (docs/operations.md "Route files")')
    .option('--dry-run', 'connect, validate and print every route\'s plan; write nothing')
    .option('--env-file <path>', 'load environment variables from a .env file first (variables already set win)')
    .option('--parallel <n>', 'routes running at a time (default: all of them)', positiveInt('--parallel'))
    .addOption(new Option('--progress <mode>', 'progress output on stderr').choices(['auto', 'tty', 'plain', 'json', 'none']).default('auto'))
    .option('--progress-interval <ms>', 'milliseconds between progress lines', positiveInt('--progress-interval'), 5000)
    .option('-q, --quiet', 'print nothing but errors')
    .option('--metrics <host:port>', 'serve Prometheus metrics at /metrics, and /healthz and /readyz (:port = every interface)')
    .option('--memory-budget <MB>', 'the process\'s memory (resident) budget: past 80 % of it, garbage is collected early; 0 = off', nonNegativeInt('--memory-budget'), 200)
    .action(async (file: string, o: CommonOpts & { envFile?: string }) => {
      const warn = (t: string): void => {
        if (o.quiet !== true) process.stderr.write(redact(`bridge: warning: ${t}`) + '\n');
      };
      const { routes, metrics } = await routesOfFile(file, { dryRun: o.dryRun === true, ...(o.envFile !== undefined ? { envFile: o.envFile } : {}) }, warn).catch(failEarly);
      // The flag wins over the file's metrics: key.
      if (o.metrics === undefined && metrics !== undefined) o.metrics = metrics;
      const endless = routes.filter((r) => r.args.command !== 'copy').length;
      // Routes start in file order and a tail or listener never frees its slot: the routes after them would wait forever.
      if (o.parallel !== undefined && o.parallel < routes.length && endless >= o.parallel)
        failEarly(configError(`--parallel ${o.parallel} with ${endless} tail/serve routes (of ${routes.length}) could leave routes never started: each tail or listener holds its slot until stopped; raise --parallel or leave it out`));
      await run(routes, { ...o, parallel: o.parallel ?? routes.length });
    });
}
