import { BridgeError } from '../../../core/errors.js';
import type { Message } from '../../../core/message.js';
import type { DescribedTable, PlanItem, Reply } from '../../../core/route.js';
import type { RowSet } from '../../../core/row-set.js';
import type { Database } from '../database.js';

export interface Statement {
  sql: string;
  params: unknown[];
  /** The same text runs again with other values (Database.query's `reuse`). */
  reuse?: boolean;
}

/** How a writer takes the row batches of a source table (Writer.rowsFrom). */
export interface RowIntake {
  unchanged?: boolean;
  wireFormat?: string;
  concurrency?: number;
}

/** One way of writing a batch (default insert, token insert, columns=auto, COPY, lookup). */
export interface Writer {
  write(messages: Message[]): Promise<Reply[] | void>;
  /** Writes rows read from a SQL table without messages; false when this writer cannot (nothing written). */
  writeRows?(rows: RowSet): Promise<boolean>;
  /**
   * Finds the first message the database rejects without keeping anything (each probe is rolled
   * back), so a failed batch can name its culprit.
   */
  locate(messages: Message[]): Promise<{ index: number; error: BridgeError } | undefined>;
  plan(): PlanItem[];
  /** Batches that may be written at once (appends only); 1 when order matters. */
  readonly concurrency?: number;
  /**
   * How the writer takes row batches of `source` (called once, at open): whether it writes them
   * without touching a value (Sink.largeRowBatches), the wire format it takes them in
   * (Sink.wireFormat), and how many may be in flight when writeRows confirms several together
   * (Sink.rowConcurrency).
   */
  rowsFrom?(source: DescribedTable | undefined): Promise<RowIntake>;
  /** Ends a write held open for more batches (Sink.flush). */
  flush?(waiting?: boolean): void;
}

/** Writers that turn a batch into SQL statements run in one transaction per batch. */
export abstract class StatementWriter implements Writer {
  /** The server's longest statement (Database.statementLimit), known once a batch was written. */
  protected statementBytes: number | undefined;

  constructor(protected readonly db: Database) {}

  /** Statements for the batch; throws a rejection naming a message whose value cannot be bound. */
  abstract statements(messages: Message[]): Statement[];
  abstract plan(): PlanItem[];

  async write(messages: Message[]): Promise<void> {
    this.statementBytes = await this.db.statementLimit();
    await this.execute(this.statements(messages));
  }

  /** Runs statements as one transaction (a single statement is its own, unless a position commits with it). */
  protected async execute(st: Statement[]): Promise<void> {
    if (st.length === 0) return;
    if (st.length === 1 && !this.db.positionPending()) {
      await this.db.query(st[0]!.sql, st[0]!.params, st[0]!.reuse);
      return;
    }
    await this.db.transaction(async (c) => {
      for (const s of st) await c.query(s.sql, s.params);
    });
  }

  async locate(messages: Message[]): Promise<{ index: number; error: BridgeError } | undefined> {
    for (let i = 0; i < messages.length; i++) {
      // A change source's schema message (a table's columns) is no row: the sink applied it before the rows.
      if (messages[i]!.metadata?.['bridge.op'] === 'schema') continue;
      try {
        const st = this.statements([messages[i]!]);
        const tx = await this.db.begin();
        try {
          for (const s of st) await tx.query(s.sql, s.params);
        } finally {
          await tx.rollback();
        }
      } catch (e) {
        if (e instanceof BridgeError && e.kind === 'rejected') return { index: i, error: e };
        throw e;
      }
    }
    return undefined;
  }
}

/** Splits `items` into chunks whose parameter count stays within the driver's bind limit. */
export function chunkByParams<T>(items: T[], perItem: number, maxParams: number, maxRows = 1000): T[][] {
  const size = Math.max(1, Math.min(maxRows, Math.floor(maxParams / Math.max(1, perItem))));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
