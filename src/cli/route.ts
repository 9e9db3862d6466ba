import { resolveEndpoint, type Endpoint } from '../config/endpoint.js';
import { redact } from '../config/redact.js';
import { createSink, createSource, specForScheme } from '../connectors/registry.js';
import { OutputClosedError } from '../connectors/ndjson/sink.js';
import { BridgeError, configError, EXIT, isDuplicateKey } from '../core/errors.js';
import type { DescribedTable, RunMode, Sink, Source } from '../core/route.js';
import { runRoute } from '../pipeline/run.js';
import { changeRouter } from './change-routes.js';
import { guaranteeOf } from './guarantee.js';
import { StatsHub } from '../stats/hub.js';
import type { Reporter, Summary } from '../ui/reporter.js';
import { holdsTransactions } from '../connectors/sql/write/held-writes.js';

export interface RouteArgs {
  command: RunMode;
  src: string;
  dst: string;
  srcOpts: [string, string][];
  dstOpts: [string, string][];
  batchSize: number;
  /** --batch-size was given: a table → table copy keeps it instead of its larger default. */
  batchSizeGiven?: boolean;
  readAheadGiven?: boolean;
  limit: number | undefined;
  dryRun: boolean;
  maxRetries: number;
  readAhead: number;
  exitWhenDrained: boolean;
  /** Third endpoint: where the sink's answers (lookup rows) go. */
  reply?: string;
  /** --dead-letter: where rejected messages go, with the error in metadata. */
  deadLetter?: string;
  /** Several routes share the dead-letter endpoint (a table list): a file is appended to, never rewritten. */
  deadLetterShared?: boolean;
  /** A table of a migration: its keys may be added after the load (SinkContext.keysAfterLoad). */
  keysAfterLoad?: boolean;
}

/** Resolves both endpoints; config mistakes surface here, before anything connects. */
export function resolveRoute(a: RouteArgs): { src: Endpoint; dst: Endpoint; reply?: Endpoint; dead?: Endpoint } {
  const src = resolveEndpoint(a.src, 'consumer', specForScheme, a.srcOpts);
  const dst = resolveEndpoint(a.dst, 'publisher', specForScheme, a.dstOpts);
  if (src.stdio && dst.stdio && a.command !== 'copy') throw configError('tail from - to - has nothing to follow');
  const out: { src: Endpoint; dst: Endpoint; reply?: Endpoint; dead?: Endpoint } = { src, dst };
  if (a.reply !== undefined) out.reply = resolveEndpoint(a.reply, 'publisher', specForScheme);
  else if (dst.given.has('lookup_query') && a.command !== 'serve') throw configError('lookup_query answers each message: give a third endpoint for the answers, e.g. - for stdout');
  if (a.deadLetter !== undefined) {
    const probe = resolveEndpoint(a.deadLetter, 'publisher', specForScheme);
    // A dead-letter file keeps ids and the error text unless told otherwise.
    out.dead = probe.spec.name === 'ndjson' && !probe.given.has('format') ? resolveEndpoint(a.deadLetter, 'publisher', specForScheme, [['format', 'envelope']]) : probe;
  }
  return out;
}

/** Maps any failure to the exit code and the one-line message users see. */
export function describeFailure(e: unknown): Summary['error'] & { exitCode: number } {
  if (e instanceof BridgeError) {
    return { code: e.kind, message: redact(e.message), hint: e.hint ? redact(e.hint) : undefined, messageId: e.messageId, exitCode: e.exitCode };
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { code: 'bug', message: redact(`unexpected failure (this is a bug, please report it): ${msg}`), exitCode: EXIT.fatal };
}

/**
 * A unique key refused a row of a run that continued from a stored position: most likely a row
 * that a stopped run had committed past its last saved position, delivered again (at least once).
 * Says so, and what makes re-delivery idempotent, unless key= is given (then another unique key
 * of the target refused it, and the message alone is right).
 */
function resumeHint(e: unknown, source: Source | undefined, dst: Endpoint | undefined, table: DescribedTable | undefined, exactly: boolean): string | undefined {
  const from = source?.resumedFrom?.();
  if (!from || !isDuplicateKey(e) || !dst || dst.given.has('key')) return undefined;
  const key = table?.primaryKey.length ? table.primaryKey.join(',') : '<its primary key>';
  // key= is an upsert of columns=auto; a sink's own insert_query or bulk_copy must say it itself.
  const fix = dst.given.has('columns') ? `give the sink key=${key} to write them over` : 'make the sink skip or update rows already there (ON CONFLICT … DO UPDATE / ON DUPLICATE KEY UPDATE)';
  // Exactly once: the position went with the rows, so what the key refuses was put there by someone else.
  if (exactly) return `this run continued from ${from}; the target already holds rows with these keys that this route did not deliver (its position is kept with its rows): remove them, or ${fix}`;
  return `this run continued from ${from}; rows a stopped run had written after its last saved position are delivered again (at least once) and the target's key refuses them: ${fix}`;
}

/**
 * Runs one route from start to exit code: open both sides, move data until drained or stopped,
 * close, report. Never throws.
 */
export async function runCommand(a: RouteArgs, reporter: Reporter, stop: AbortSignal, onHub?: (hub: StatsHub) => void): Promise<number> {
  const hub = new StatsHub();
  onHub?.(hub);
  hub.command = a.command;
  hub.mode = a.command;
  reporter.start(hub);
  let source: Source | undefined;
  let sink: Sink | undefined;
  let replySink: Sink | undefined;
  let deadSink: Sink | undefined;
  let summary: Summary;
  let rows = 0;
  let dstEp: Endpoint | undefined;
  let sourceTable: DescribedTable | undefined;
  try {
    const { src, dst, reply, dead } = resolveRoute(a);
    dstEp = dst;
    hub.source = src.display;
    hub.sink = dst.display;
    hub.delivery = guaranteeOf(a.command, src, dst).mode;
    for (const w of [...src.warnings, ...dst.warnings]) hub.warn(w);
    source = await createSource(src);
    sink = changeRouter(a, src, dst, source) ?? (await createSink(dst));
    if (dst.spec.name === 'database') source.sendSchemaChanges?.();
    if (dst.spec.name === 'database' && sink.writeHeld && holdsTransactions(dst)) source.sendInProgress?.();
    const warn = (t: string): void => hub.warn(t);
    if (!a.dryRun) sink.prepare?.(warn);
    const info = (t: string): void => hub.info(t);
    // Exactly once: a source with a position asks the sink for the one it keeps (opened once, when asked).
    let kept: ReturnType<NonNullable<Sink['positions']>> | undefined;
    const s = sink;
    const sinkPositions = s.positions ? () => (kept ??= s.positions!(a.dryRun, warn).catch((e: unknown) => Promise.reject(e instanceof BridgeError ? e.on('sink') : e))) : undefined;
    // Which side failed to connect is half of the answer (PostgreSQL to PostgreSQL looks the same otherwise).
    await source.open({ mode: a.command, batchSize: a.batchSize, warn, info, exitWhenDrained: a.exitWhenDrained, dryRun: a.dryRun, stop, limit: a.limit, sinkPositions }).catch((e: unknown) => {
      throw e instanceof BridgeError ? e.on('source') : e;
    });
    sourceTable = await source.describeTable?.(a.dryRun);
    const sinkCtx = { mode: a.command, warn, durable: source.durablePosition, dryRun: a.dryRun, countDropped: (n: number) => (hub.dropped += n), countLossy: (n: number) => (hub.lossy += n), sourceTable, changes: source.streamsChanges === true, keysAfterLoad: a.keysAfterLoad === true };
    await sink.open(sinkCtx).catch((e: unknown) => {
      throw e instanceof BridgeError ? e.on('sink') : e;
    });
    if (sink.wireFormat) source.useWireFormat?.(sink.wireFormat);
    if (reply) {
      replySink = await createSink(reply);
      await replySink.open(sinkCtx);
    }
    if (dead) {
      deadSink = await createSink(dead);
      await deadSink.open(a.deadLetterShared ? { ...sinkCtx, durable: true } : sinkCtx);
    }
    hub.mode = (await source.plan?.().catch(() => []))?.find((i) => i.label === 'mode')?.value ?? a.command;
    hub.sourcePool = () => source?.poolStats?.();
    hub.sinkPool = () => sink?.poolStats?.();
    hub.sinkWaiting = () => sink?.waitingOn?.();
    hub.slotLag = () => source?.slotLagBytes?.();
    hub.requestStats = () => source?.requestStats?.();
    hub.sourceCaughtUp = () => source?.caughtUp?.();
    if (source.attachInline && sink.answers) {
      const s = sink;
      source.attachInline((ms) => s.write(ms));
    }
    if (a.dryRun) {
      await printPlan(reporter, source, sink, src, dst, a, sourceTable);
      summary = { ok: true, exitCode: 0, stopped: false, dryRun: true };
    } else {
      const est = reporter.showsEstimate === false ? null : ((await source.estimateRows?.().catch(() => null)) ?? null);
      hub.estimatedRows = est !== null && a.limit !== undefined ? Math.min(est, a.limit) : est;
      hub.setState('running');
      source.start?.();
      const result = await runRoute({
        source,
        sink,
        mode: a.command,
        ...batching(a, source, sink, dst),
        limit: a.limit,
        maxRetries: a.command === 'copy' ? a.maxRetries : Infinity,
        stats: hub,
        stop,
        ...(deadSink ? { deadLetter: deadSink } : {}),
        ...(replySink
          ? {
              onReplies: async (_m, replies) => {
                const answers = replies.filter((r): r is NonNullable<typeof r> => r !== undefined);
                if (answers.length) await replySink!.write(answers);
              },
            }
          : {}),
      });
      rows = result.rows;
      summary = { ok: true, exitCode: 0, stopped: result.stopped };
    }
  } catch (e) {
    if (e instanceof OutputClosedError) summary = { ok: true, exitCode: 0, stopped: true };
    else {
      const f = describeFailure(e);
      const hint = f.hint ?? resumeHint(e, source, dstEp, sourceTable, hub.delivery === 'exactly once');
      summary = { ok: false, exitCode: f.exitCode, stopped: stop.aborted, error: { code: f.code, message: f.message, hint: hint ? redact(hint) : undefined, messageId: f.messageId } };
    }
  }
  hub.checkpoint = source?.checkpoint?.();
  hub.setState(summary.ok ? 'done' : 'failed');
  await source?.close().catch(() => {});
  await sink?.close().catch(() => {});
  await replySink?.close().catch(() => {});
  await deadSink?.close().catch(() => {});
  void rows;
  reporter.finish(hub.snapshot(), summary);
  return summary.exitCode;
}

/** Messages per batch unless --batch-size says otherwise. */
export const DEFAULT_BATCH = 1024;
/** Rows per batch when a table's rows are held as values on their way into another table (see batching). */
const CONVERTED_ROWS = 2048;
/**
 * Changes per batch from change capture into a database table (a mirror): each batch is one
 * transaction there, its position saved with it. A backlog of 100,000 single-row transactions
 * into a PostgreSQL mirror took 4.5–5.8 s in batches of 1,024 and 3.6–4.4 s in batches of 4,096
 * (16,384: 3.8–4.5 s), alternating; live, a batch is what has arrived, so this adds no wait.
 */
const CHANGES_INTO_TABLE = 4096;

/**
 * A table whose rows go into a table, unless --batch-size / --read-ahead are given: rows that stay
 * COPY text end to end (appended unchanged) move in the large ranges the source reads (bytes, one
 * transaction each); rows held as values (converted, or read by a driver) move 2,048 at a time with
 * one batch read ahead. Measured on 1M rows: 8-12 % faster than 1,024 with two read ahead into
 * PostgreSQL, at the same peak RSS (~190 MB); 4,096 was faster still, but over 200 MB. A sink that
 * streams several row batches into one write (PostgreSQL's open COPYs) says how many may be in
 * flight for it (rowConcurrency).
 */
function batching(a: RouteArgs, source: Source, sink: Sink, dst: Endpoint): { batchSize: number; readAhead: number; concurrency?: number } {
  const rows = source.rowBatches;
  if (source.streamsChanges === true && dst.spec.name === 'database' && !a.batchSizeGiven) return { batchSize: CHANGES_INTO_TABLE, readAhead: a.readAhead };
  if (rows === undefined || !sink.writeRows) return { batchSize: a.batchSize, readAhead: a.readAhead };
  const bytes = rows.wire && sink.largeRowBatches === true ? rows.size : undefined;
  return {
    batchSize: a.batchSizeGiven ? a.batchSize : (bytes ?? CONVERTED_ROWS),
    readAhead: a.readAheadGiven || bytes ? a.readAhead : 1,
    ...(sink.rowConcurrency ? { concurrency: sink.rowConcurrency } : {}),
  };
}

async function printPlan(reporter: Reporter, source: Source, sink: Sink, src: Endpoint, dst: Endpoint, a: RouteArgs, table: DescribedTable | undefined): Promise<void> {
  const lines: string[] = [`plan for bridge ${a.command} (dry run: nothing is written)`, `  from ${src.display}`, `  to   ${dst.display}`];
  for (const item of (await source.plan?.()) ?? []) lines.push(`  source ${item.label}: ${item.value}`);
  const est = await source.estimateRows?.().catch(() => null);
  if (est !== undefined && est !== null) lines.push(`  source rows to read: ~${est}`);
  for (const item of (await sink.plan?.()) ?? []) lines.push(`  sink ${item.label}: ${item.value}`);
  if (table && sink.planMapping) for (const item of sink.planMapping(table.columns)) lines.push(`  ${item.label.startsWith('  ') ? item.label : `sink ${item.label}`}${item.label.startsWith('  ') ? ' ' : ': '}${item.value}`);
  const g = guaranteeOf(a.command, src, dst);
  lines.push(`  delivery: ${g.mode}: ${g.why}`);
  lines.push(`  batch size ${batching(a, source, sink, dst).batchSize}${a.limit !== undefined ? `, limit ${a.limit}` : ''}`);
  // The plan is what the user asked for, so it goes to stdout (no data is written in a dry run).
  process.stdout.write(redact(lines.join('\n')) + '\n');
  void reporter;
}
