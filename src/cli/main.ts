import { Command, InvalidArgumentError, Option } from 'commander';
import { redact } from '../config/redact.js';
import { configError, EXIT } from '../core/errors.js';
import { completionCommand } from './completion.js';
import { startMemoryBudget } from '../core/memory-budget.js';
import { connectorsCommand } from './connectors.js';
import { slotsCommand } from './slots.js';
import { fieldFlags } from './flags.js';
import { nonNegativeInt, positiveInt } from './args.js';
import { makeReporter, metricsFor, type CommonOpts } from './reporting.js';
import { DEFAULT_BATCH, runCommand, type RouteArgs } from './route.js';
import { failEarly, routeFileCommand, runSeveral } from './several.js';
import { schemaStep } from './migrate-schema.js';
import { splitRoutes, tableRoutes } from './table-routes.js';

const VERSION = '0.1.0';

function list(v: string, prev: string[] = []): string[] {
  return [...prev, ...v.split(',').map((x) => x.trim()).filter(Boolean)];
}

function keyValue(v: string, prev: [string, string][] = []): [string, string][] {
  const eq = v.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got "${v}"`);
  return [...prev, [v.slice(0, eq), v.slice(eq + 1)]];
}

/** Collects field flags (`--cursor-column id`) into the override lists of their side. */
function splitFieldFlags(o: CommonOpts): { src: [string, string][]; dst: [string, string][] } {
  const src: [string, string][] = [];
  const dst: [string, string][] = [];
  for (const f of fieldFlags()) {
    const key = f.field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    const v = o[key];
    if (v === undefined) continue;
    (f.role === 'consumer' ? src : dst).push([f.field, v === true ? 'true' : String(v)]);
  }
  return { src, dst };
}

function addRouteOptions(cmd: Command, mode: 'copy' | 'tail' | 'serve'): Command {
  cmd
    .option('--batch-size <n>', `messages per batch (bound to select_query placeholder); default ${DEFAULT_BATCH} (16384 rows when a PostgreSQL table is appended unchanged into a PostgreSQL table)`, positiveInt('--batch-size'))
    .option('--limit <n>', 'stop after about n messages', positiveInt('--limit'))
    .option('--dry-run', 'connect, validate and print the plan; write nothing')
    .addOption(new Option('--progress <mode>', 'progress output on stderr').choices(['auto', 'tty', 'plain', 'json', 'none', 'bar']).default('auto'))
    .option('--progress-interval <ms>', 'milliseconds between progress lines', positiveInt('--progress-interval'), 5000)
    .option('-q, --quiet', 'print nothing but errors')
    .option('--src-opt <key=value>', 'set a source field (repeatable)', keyValue)
    .option('--dst-opt <key=value>', 'set a sink field (repeatable)', keyValue)
    .option('--max-retries <n>', 'retries of a transient failure before copy gives up', positiveInt('--max-retries'), 10)
    .option('--read-ahead <n>', `batches read ahead of the sink; default ${mode === 'serve' ? 1 : '2 (1 when the rows of a table are converted into another table)'}`, positiveInt('--read-ahead'))
    .option('--dead-letter <url>', 'endpoint for messages the sink rejects (constraint, type); the rest goes on')
    .option('--metrics <host:port>', 'serve Prometheus metrics at /metrics, and /healthz and /readyz (:port = every interface)')
    .option('--memory-budget <MB>', 'the process\'s memory (resident) budget: past 80 % of it, garbage is collected early; 0 = off', nonNegativeInt('--memory-budget'), 200);
  if (mode === 'copy') cmd.option('--data-only', 'a migration (table list into columns=auto&auto_create_table=true) loads data and keys only: no secondary indexes, foreign keys, checks or defaults after it');
  if (mode === 'tail') cmd.option('--exit-when-drained', 'stop with exit 0 once a poll finds nothing new (for cron)');
  if (mode !== 'serve')
    cmd
      .option('--exclude <tables>', 'with table=* / table=a,b / table=schema.* on the source: tables to leave out (comma list, * patterns; repeatable)', list)
      .option('--parallel <n>', 'with several source tables: tables at a time (copy: default 1; tail: all); with one table (copy): N connections, each reading a key range', positiveInt('--parallel'));
  for (const f of fieldFlags()) {
    const side = f.role === 'consumer' ? 'source' : 'sink';
    const first = f.description.split(/(?<=\.)\s/)[0];
    cmd.addOption(new Option(f.boolean ? `${f.flag} [bool]` : `${f.flag} <value>`, `(${side}) ${first}`).hideHelp(false));
  }
  return cmd;
}

/** `0.0.0.0:8080` → `http://0.0.0.0:8080`: the listen address may come without a scheme. */
const listenUrl = (text: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);

async function run(mode: 'copy' | 'tail' | 'serve', src: string, dst: string, reply: string | undefined, o: CommonOpts): Promise<void> {
  const flags = splitFieldFlags(o);
  const args: RouteArgs = {
    command: mode,
    src,
    dst,
    srcOpts: [...flags.src, ...(o.srcOpt ?? [])],
    dstOpts: [...flags.dst, ...(o.dstOpt ?? [])],
    batchSize: o.batchSize ?? DEFAULT_BATCH,
    batchSizeGiven: o.batchSize !== undefined,
    limit: o.limit,
    dryRun: o.dryRun === true,
    maxRetries: mode === 'serve' ? Infinity : o.maxRetries,
    readAhead: o.readAhead ?? (mode === 'serve' ? 1 : 2),
    readAheadGiven: o.readAhead !== undefined,
    exitWhenDrained: o.exitWhenDrained === true,
    ...(reply !== undefined ? { reply } : {}),
    ...(typeof o.deadLetter === 'string' ? { deadLetter: o.deadLetter } : {}),
  };
  const endless = mode === 'tail' && !args.exitWhenDrained;
  const many = await tableRoutes(args, o.exclude ?? [], (t) => process.stderr.write(redact(`bridge: warning: ${t}`) + '\n'), o.parallel ?? (endless ? Infinity : 1)).catch(failEarly);
  if (many) {
    // A tail never ends by itself: with fewer slots than tables, the tables after them would never start.
    if (endless && o.parallel !== undefined && o.parallel < many.length) failEarly(configError(`--parallel ${o.parallel} is fewer than the ${many.length} tables to tail: each tail holds its slot until stopped; leave --parallel out`));
    const step = await schemaStep(args, many, o).catch(failEarly);
    return runSeveral(mode, many, { ...o, parallel: o.parallel ?? (endless ? many.length : 1) }, 'tables', stop.signal, setOnStop, step);
  }
  if (o.parallel !== undefined && o.parallel > 1) {
    // One table, N connections: each reads a key range of it.
    const parts = await splitRoutes(args, o.parallel, (t) => process.stderr.write(redact(`bridge: warning: ${t}`) + '\n')).catch(failEarly);
    return runSeveral(mode, parts, { ...o, parallel: parts.length }, 'parts', stop.signal, setOnStop);
  }
  const reporter = await makeReporter(o);
  if (stop.signal.aborted) reporter.info(`${lastSignal}: stopping`);
  onStop = (sig) => reporter.info(`${sig}: stopping after the batch in flight (again to quit at once)`);
  const onHub = await metricsFor(o).catch(failEarly);
  const code = await runCommand(args, reporter, stop.signal, onHub && ((hub) => onHub('main', hub)));
  await reporter.closing;
  process.exit(code);
}

/** Installed first thing, so a signal during start-up also stops cleanly (nothing is written yet). */
const stop = new AbortController();
let lastSignal = '';
let onStop: ((sig: string) => void) | undefined;
const setOnStop = (f: (sig: string) => void): void => {
  onStop = f;
};
let signalCount = 0;
function installSignals(signals: SignalSource | undefined): void {
  const handle = (sig: string): void => {
    if (++signalCount > 1) process.exit(130);
    lastSignal = sig;
    onStop?.(sig);
    stop.abort();
  };
  if (signals) return signals(handle);
  process.on('SIGINT', () => handle('SIGINT'));
  process.on('SIGTERM', () => handle('SIGTERM'));
}

/** How bin/bridge.js hands over the stop signals it catches from its first line (and those already caught). */
export type SignalSource = (handle: (sig: string) => void) => void;

/**
 * `workers=N`: the primary forks N processes that share the listening port (node:cluster), passes
 * signals on, and exits with the worst exit code. Returns false when this process should serve.
 */
async function forkWorkers(url: string, o: CommonOpts): Promise<boolean> {
  const cluster = (await import('node:cluster')).default;
  if (cluster.isWorker) return false;
  const flags = splitFieldFlags(o).src;
  const { resolveEndpoint } = await import('../config/endpoint.js');
  const { specForScheme } = await import('../connectors/registry.js');
  let workers = 0;
  try {
    workers = resolveEndpoint(url, 'consumer', specForScheme, [...flags, ...(o.srcOpt ?? [])]).fields.workers as number;
  } catch {
    return false; // the run itself reports the config error
  }
  if (!workers) return false;
  // Each worker keeps its own counters: one metrics endpoint could only show one of them.
  if (o.metrics !== undefined) failEarly(configError('--metrics cannot be combined with workers=: each worker process counts for itself; run one listener per process (or per container) instead'));
  const codes: number[] = [];
  for (let i = 0; i < workers; i++) cluster.fork();
  onStop = () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  };
  await new Promise<void>((resolve) => {
    cluster.on('exit', (_w, code) => {
      codes.push(code ?? 1);
      if (codes.length === workers) resolve();
    });
  });
  process.exit(Math.max(...codes));
}

export async function main(argv: string[], signals?: SignalSource): Promise<void> {
  installSignals(signals);
  // Secrets on the command line must not show in `ps`.
  process.title = `bridge ${argv[2] ?? ''}`.trim();
  const program = new Command('bridge')
    .description('Move data between SQL databases, NDJSON and HTTP endpoints.')
    .version(VERSION)
    .configureOutput({
      writeErr: (s) => process.stderr.write(redact(s)),
      writeOut: (s) => process.stdout.write(s),
      // Usage mistakes get the same one-line shape as every other error.
      outputError: (s, write) => write(redact(`bridge: error: ${s.replace(/^error: /, '').trim()} (add --help for usage)\n`)),
    })
    .exitOverride()
    .hook('preAction', (_program, action) => {
      const mb = action.opts().memoryBudget as number | undefined;
      if (mb !== undefined) startMemoryBudget(mb, (t) => process.stderr.write(`bridge: warning: ${t}\n`));
    });

  const replyHelp = 'where the sink\'s answers go (lookup_query rows), e.g. -';
  addRouteOptions(
    program.command('copy').description('copy everything the source holds now to the sink, then exit').argument('<src>', 'source endpoint URL, file://path or -').argument('<dst>', 'sink endpoint URL, file://path or -').argument('[reply]', replyHelp),
    'copy',
  ).action((src: string, dst: string, reply: string | undefined, o: CommonOpts) => run('copy', src, dst, reply, o));
  addRouteOptions(
    program.command('tail').description('follow the source until stopped (SIGINT/SIGTERM), resuming from the checkpoint').argument('<src>').argument('<dst>').argument('[reply]', replyHelp),
    'tail',
  ).action((src: string, dst: string, reply: string | undefined, o: CommonOpts) => run('tail', src, dst, reply, o));
  addRouteOptions(
    program
      .command('serve')
      .description('listen for HTTP requests and write each as a message to the sink; answer after it is confirmed')
      .argument('<listen>', 'host:port to listen on (listener fields as ?query or --src-opt)')
      .argument('<dst>', 'sink endpoint')
      .argument('[reply]', replyHelp),
    'serve',
  ).action(async (listen: string, dst: string, reply: string | undefined, o: CommonOpts) => {
    const url = listenUrl(listen);
    if (await forkWorkers(url, o)) return;
    await run('serve', url, dst, reply, o);
  });
  routeFileCommand(program, (routes, o) => runSeveral('run', routes, o, 'routes', stop.signal, setOnStop));
  connectorsCommand(program);
  slotsCommand(program);
  completionCommand(program);

  try {
    await program.parseAsync(argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number };
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
    if (typeof err.exitCode === 'number') process.exit(err.exitCode === 1 ? EXIT.config : err.exitCode);
    process.stderr.write(redact(`bridge: error: unexpected failure (this is a bug): ${(e as Error).message}`) + '\n');
    process.exit(EXIT.fatal);
  }
}
