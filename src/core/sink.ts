import type { Message } from './message.js';
import type { RowSet } from './row-set.js';
import type { CommitPosition, HeldPart, DescribedColumn, DescribedTable, PlanItem, PoolStats, RunMode, SinkPositions } from './route.js';

export interface SinkContext {
  mode: RunMode;
  warn(text: string): void;
  /** The source persists its position: a write must be durable before it resolves. */
  durable: boolean;
  /** --dry-run: connect and describe, but create and write nothing. */
  dryRun: boolean;
  /** Counts payload fields the sink had no place for (columns=auto without extra_column). */
  countDropped(n: number): void;
  /** Counts values written through a documented lossy conversion (the dry run's LOSSY mappings). */
  countLossy?(n: number): void;
  /** The source's table, when it has one (SQL sources): a sink may create a typed table from it. */
  sourceTable?: DescribedTable | undefined;
  /**
   * The source streams a table's changes (change capture): a field the sink has no column for is
   * a column the captured table gained, and dropping it would lose its values for good; the sink
   * stops instead, before writing that batch.
   */
  changes?: boolean;
  /** A migration's table: a typed table may be created without its keys, which its last step adds after the load. */
  keysAfterLoad?: boolean;
}

/** A reply to one message (lookup answers, HTTP responses); undefined when the sink has nothing to say. */
export type Reply = Message | undefined;

/** A publisher endpoint. `write` resolves only once the batch is durable in the sink. */
export interface Sink {
  /** Starts connecting before open() (while the source opens); open() reports a failure. */
  prepare?(warn: (text: string) => void): void;
  open(ctx: SinkContext): Promise<void>;
  /**
   * Exactly once: the positions this sink keeps with its rows (a SQL sink's position table,
   * created on first use unless `dryRun`), opened before the source so that it resumes from them;
   * undefined when the sink keeps none. Called after prepare(), before open().
   */
  positions?(dryRun: boolean, warn: (text: string) => void): Promise<SinkPositions | undefined>;
  /** Writes a batch; with `commit`, the sink commits that position in the same transaction (see positions). */
  write(messages: Message[], commit?: CommitPosition): Promise<Reply[] | void>;
  /** A batch read ahead, written later as this same array: a sink may convert it while it waits on another (no throw, no change to what write does). */
  ahead?(messages: Message[]): void;
  /**
   * Writes a batch of rows as one unit, without messages (SQL → SQL). Resolves false, having
   * written nothing, when the sink cannot take this batch as rows: the engine then writes its
   * messages. A rejection names no message: the engine retries the batch as messages to find it.
   */
  writeRows?(rows: RowSet, commit?: CommitPosition): Promise<boolean>;
  /** Commits a position alone: a batch without rows, or one written in parts (dead letters isolated). */
  savePosition?(commit: CommitPosition): Promise<void>;
  /** Applies a part of a source transaction in progress into a transaction held open for it (HeldPart); fails rather than retries. */
  writeHeld?(messages: Message[], part: HeldPart, commit?: CommitPosition): Promise<void>;
  /**
   * True when the sink writes the source's rows without touching a value (same columns, same
   * types, appends): a batch then costs its bytes only, and the route reads the source's large
   * row batches. Otherwise each row becomes values, and batches keep the usual size.
   */
  readonly largeRowBatches?: boolean;
  /** The wire format in which the sink takes the source's rows unchanged, when not the source's default (PostgreSQL binary COPY). */
  readonly wireFormat?: string | undefined;
  /**
   * The first message of a rejected batch that the sink refuses, found without keeping anything
   * written (probes are rolled back), with the sink's own error.
   */
  locate?(messages: Message[]): Promise<{ index: number; error: Error } | undefined>;
  /**
   * How many batches may be written at once. Only sinks whose writes commute (appends) say more
   * than 1: an upsert written out of order could keep an older value.
   */
  readonly concurrency?: number;
  /**
   * How many row batches (writeRows) may be in flight at once when it differs from `concurrency`:
   * a sink that streams several batches into one write confirms them together, and needs them
   * all in flight to do so.
   */
  readonly rowConcurrency?: number;
  /**
   * Ends a write the sink keeps open for more batches, so that what it holds gets confirmed: no
   * more batches follow, or (`waiting`) the engine sends none until its oldest write is
   * confirmed; then a write that ended earlier and is still committing is enough.
   */
  flush?(waiting?: boolean): void;
  /**
   * Of messages whose write failed, how many the sink delivered anyway (an HTTP sink sends each
   * message on its own): the summary counts what reached the sink.
   */
  deliveredOf?(messages: Message[]): number;
  /** True when the sink answers each message (lookup_query): request-reply sources may call it inline. */
  readonly answers?: boolean;
  close(): Promise<void>;
  plan?(): Promise<PlanItem[]>;
  poolStats?(): PoolStats | undefined;
  /** What the sink waits on right now, for the progress line (an HTTP peer that has not answered), or undefined. */
  waitingOn?(): string | undefined;
  /** Dry run: how the source's columns map onto the sink (columns=auto). */
  planMapping?(columns: DescribedColumn[]): PlanItem[];
}
