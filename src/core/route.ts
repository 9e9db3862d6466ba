import type { Message } from './message.js';
import type { LatencySnapshot } from './latency.js';
import type { RowSet } from './row-set.js';
import type { Reply } from './sink.js';

/** What an HTTP listener counts: requests, answers by status, and how long answers took. */
export interface RequestStats {
  requests: number;
  statuses: Record<string, number>;
  latency?: LatencySnapshot;
}

/** How a route runs: `copy` drains and ends, `tail` follows until stopped, `serve` answers requests. */
export type RunMode = 'copy' | 'tail' | 'serve';

/**
 * A route's position as a sink keeps it (exactly once): `route` names the route in the sink
 * (`<cursor_id>@<source>`, `cdc:<slot>`), `text` is what the source resumes from.
 */
export interface CommitPosition {
  route: string;
  text: string;
}

/** The positions a sink keeps with its rows: a source resumes from them before its own checkpoint store. */
export interface SinkPositions {
  /** Where they are kept, for plans and messages ("table bridge_positions in the sink"). */
  readonly description: string;
  load(route: string): Promise<string | undefined>;
}

/** A batch read from a source, with the callbacks that move the source position. */
export interface SourceBatch {
  /** One message per row; on a batch with `rows`, a getter that builds them only if read. */
  readonly messages: Message[];
  /** The batch as table rows (SQL sources): sinks that write rows take these without messages. */
  rows?: RowSet;
  /** Human-readable source position after this batch (cursor value, LSN), for progress output. */
  position?: string;
  /**
   * The position after this batch for a sink that keeps positions (SourceContext.sinkPositions):
   * committed in the transaction that writes the batch, so a kill never splits rows from position.
   */
  commit?: CommitPosition;
  /**
   * Called once the sink confirmed every message of this batch and of every batch before it, with
   * the sink's answers (index-aligned; undefined where it had none or the message was dead-lettered).
   */
  ack(replies?: Reply[]): Promise<void>;
  /**
   * Present on sources that answer each message (HTTP): called when the batch could not be written
   * (rejected, or transient failures outlived the retries); the run then goes on instead of stopping.
   */
  fail?(error: unknown): Promise<void>;
  /**
   * False when the ack cannot be repeated (it commits a transaction held since the read): if it
   * fails, the rows simply stay in the source and are read again.
   */
  ackRetryable?: boolean;
  /** Called when the batch will not be delivered (stop, fatal error): give back leases and locks. */
  release?(): Promise<void>;
  /** A part of a source transaction that has not committed yet (see HeldPart): written by Sink.writeHeld. */
  held?: HeldPart;
}

/**
 * A part of a source transaction streamed while it is still in progress (a large one, so that its
 * apply overlaps the source's work on it): the sink applies it into one transaction it holds open
 * for `tx`, and commits that with the part that has `end: 'commit'` (and the batch's position), or
 * rolls it back at `end: 'abort'`. A failed part is given to the batch's `fail`: the source then
 * reads the transaction again, whole, once it has committed.
 */
export interface HeldPart {
  tx: string;
  end?: 'commit' | 'abort';
  /** On the part that commits: the messages of all its parts (counted as written only then). */
  count?: number;
}

/** Pool figures of one side, for the progress view. */
export interface PoolStats {
  inUse: number;
  idle: number;
  waiting: number;
  max: number;
}

/**
 * A source column as a sink sees it. `detail` is the source connector's own description (a SQL
 * source's column and what its kind can hold); only sinks of the same family read it.
 */
export interface DescribedColumn {
  name: string;
  type: string;
  dbType: string;
  kind: string;
  nullable: boolean;
  detail?: unknown;
}

/** A source table as a sink sees it: columns, primary key and unique column sets. */
export interface DescribedTable {
  columns: DescribedColumn[];
  primaryKey: string[];
  unique: string[][];
  /** The source connector's own description of the table (a SQL source's TableInfo): only sinks of the same kind read it. */
  detail?: unknown;
}

/** One line of a dry-run plan. */
export interface PlanItem {
  label: string;
  value: string;
}

export interface SourceContext {
  mode: RunMode;
  batchSize: number;
  /** Emits a warning line through the route's reporter. */
  warn(text: string): void;
  /** Emits an informational line (e.g. the address a listener took). */
  info?(text: string): void;
  /** Stop polling once a poll finds nothing new, even in `tail` (cron use). */
  exitWhenDrained: boolean;
  /** --dry-run: connect and describe, but create and write nothing. */
  dryRun: boolean;
  /** Aborted by SIGINT/SIGTERM: a source whose opening can wait long (creating a replication slot) gives up and undoes it. */
  stop?: AbortSignal;
  /** --limit: a source that gives whole transactions (change capture) keeps to `max` instead. */
  limit?: number;
  /**
   * The sink keeps positions with its rows (exactly once): a source with a position resumes from
   * the sink's when it has one (it wins over the checkpoint store) and gives each batch `commit`.
   */
  sinkPositions?: () => Promise<SinkPositions | undefined>;
}

/** A consumer endpoint: yields batches, pulled by the pipeline (backpressure = not calling next). */
export interface Source {
  open(ctx: SourceContext): Promise<void>;
  /**
   * The next batch of at most about `max` messages, or null when the source is drained (copy) or
   * the signal was aborted. In `tail` it waits (polling) until rows arrive.
   */
  next(max: number, signal: AbortSignal): Promise<SourceBatch | null>;
  close(): Promise<void>;
  /** Rows still to read, when the source can tell (for ETA). */
  estimateRows?(): Promise<number | null>;
  plan?(): Promise<PlanItem[]>;
  poolStats?(): PoolStats | undefined;
  /**
   * Present on sources that answer per message (HTTP): a message the sink rejects for good is
   * answered (422) instead of stopping the run, when no dead-letter endpoint takes it.
   */
  rejectMessage?(m: Message, error: Error): Promise<void>;
  /**
   * Present on sources that must not lose what they accepted (an HTTP listener): on stop the pipeline
   * calls this (stop taking new work) and keeps writing until next() returns null.
   */
  stopAccepting?(): void;
  /**
   * The table rows are read from (SQL sources), for the dry run's column mapping and typed table
   * creation; `profile` asks for what the data holds where types are not enforced (a dry run).
   */
  describeTable?(profile?: boolean, table?: string): Promise<DescribedTable | undefined>;
  /** Called before open when the sink is a database: column changes of a captured table come as schema messages (see core/schema-change.ts). */
  sendSchemaChanges?(): void;
  /** Called before open when the sink holds transactions open (Sink.writeHeld): large transactions may come in parts before they commit (SourceBatch.held). */
  sendInProgress?(): void;
  /** The tables a change-capture endpoint streams (bridge.table of its messages): each goes into the sink table of its name. */
  capturedTables?(): string[] | undefined;
  /** Called once the whole route is ready (sink open): a listener starts answering only then. */
  start?(): void;
  /** Lets a request-reply source answer straight from the sink (inline_response_fast_path). */
  attachInline?(write: (messages: Message[]) => Promise<Reply[] | void>): void;
  /** Requests and answers by status (HTTP listener), for the progress view and metrics. */
  requestStats?(): RequestStats;
  /** Bytes of WAL the replication slot holds back (change capture), when known. */
  slotLagBytes?(): number | undefined;
  /** True while everything there is has been read and the source waits for more (the view says "caught up"). */
  caughtUp?(): boolean;
  /** Where the persisted position stands ("to-lake in table bridge_cursors_events = 42"), if any. */
  checkpoint?(): string | undefined;
  /** The stored position this run continued from (a cursor_id's), when it continued one. */
  resumedFrom?(): string | undefined;
  /** Whether the source persists its position (cursor_id, deletes): sinks then sync each batch. */
  readonly durablePosition: boolean;
  /** The source streams a table's changes (change capture): see SinkContext.changes. */
  readonly streamsChanges?: boolean;
  /**
   * Present when batches carry `rows` (a table read by key): the rows per batch the source reads
   * best when a sink takes them unchanged (the route uses it unless --batch-size is given), and
   * whether they stay in the wire format (bytes) or are driver values (memory per row).
   */
  readonly rowBatches?: { wire: true; size: number } | { wire: false } | undefined;
  /** The sink takes rows unchanged in `format` (Sink.wireFormat): read them so if the source can. */
  useWireFormat?(format: string): void;
}

export type { Reply, Sink, SinkContext } from './sink.js';
