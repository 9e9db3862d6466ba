import type { PlanItem, SourceBatch } from '../../core/route.js';
import type { Database, HeldTransaction } from '../sql/database.js';
import type { Reader } from '../sql/read/reader.js';
import type { RowMessages } from '../sql/read/rows.js';
import type { SqlResult } from '../sql/types.js';
import type { SqliteConnection } from './driver.js';
import { bytesSql, refuseReplaced, suspectCells } from './text-bytes.js';
import { sqliteType } from './types.js';
import { notResumable, numberedBatch } from '../sql/read/numbered-batch.js';

/**
 * A SQLite view: it has no rowid to page by ("no such column: rowid"), so it is read by one
 * statement stepped a batch at a time, in one read transaction (one snapshot of the file). The
 * connection is held for the read: no other statement may run on it while the statement steps.
 * That is in WAL mode only: in rollback-journal mode a reader keeps every writer of the file
 * waiting, and a view copied into a table of its own file waited on itself (retried until the run
 * gave up). There each batch is one statement of its own (LIMIT/OFFSET: the view computed again up
 * to there, and rows written meanwhile may shift it). Not resumable: a copy stopped part-way reads
 * it from its start again.
 */
export class ViewReader implements Reader {
  readonly finite = true;
  private tx: HeldTransaction | undefined;
  private rowsLeft: Iterator<unknown[]> | undefined;
  private fields: SqlResult['fields'] = [];
  private read = 0;
  private done = false;
  /** Rollback-journal mode: no statement is held between batches (rowsLeft stays undefined). */
  private started = false;

  constructor(
    private readonly db: Database,
    private readonly view: string,
    private readonly rows: RowMessages,
    private readonly select: string,
    /** What it is, for the plan: a view, or a table whose own column rowid hides the row id. */
    private readonly what = 'a view',
  ) {}

  private async start(): Promise<Iterator<unknown[]> | undefined> {
    if (String((await this.db.query('PRAGMA journal_mode')).rows[0]?.[0]).toLowerCase() !== 'wal') return undefined;
    this.tx = await this.db.begin(false);
    const stmt = (this.tx.conn as SqliteConnection).db.prepare(`SELECT ${this.select} FROM ${this.db.dialect.table(this.view)}`);
    this.fields = stmt.columns().map((c) => ({ name: c.name, ...sqliteType(c.type) }));
    return (stmt.raw(true).safeIntegers(true).iterate() as IterableIterator<unknown[]>)[Symbol.iterator]();
  }

  async poll(max: number): Promise<SourceBatch | null> {
    if (this.done) return null;
    let batch: unknown[][] = [];
    try {
      if (!this.started) this.rowsLeft = await this.start();
      this.started = true;
      const it = this.rowsLeft;
      if (!it) {
        const page = await this.db.query(`SELECT ${this.select} FROM ${this.db.dialect.table(this.view)} LIMIT ? OFFSET ?`, [max, this.read]);
        this.fields = page.fields;
        batch = page.rows;
        this.done = batch.length < max;
      }
      while (it && batch.length < max) {
        const next = it.next();
        if (next.done) {
          this.done = true;
          await this.close();
          break;
        }
        batch.push(next.value);
      }
    } catch (e) {
      // Retried, a poll would find the closed statement at its end and take the view for read.
      await this.close();
      throw notResumable(this.db, this.view, this.read, e);
    }
    if (batch.length === 0) return null;
    const first = this.read;
    // The rows of a held statement are read again as bytes on another connection (the view's rows at their offset).
    const cells = this.rowsLeft ? suspectCells(batch) : [];
    if (cells.length > 0) {
      const again = await this.db
        .query(bytesSql(`SELECT ${this.select} FROM ${this.db.dialect.table(this.view)} LIMIT ? OFFSET ?`, this.fields.length), [batch.length, first])
        .then((r) => r.rows, () => undefined);
      refuseReplaced(batch, cells, again, (j) => ({ name: this.fields[j]?.name ?? `#${j + 1}`, table: this.view }));
    }
    this.read += batch.length;
    return numberedBatch(this.rows, { rows: batch, fields: this.fields, affected: 0 }, `sqlite:${this.view}:row:`, first);
  }

  async estimate(): Promise<number | null> {
    return this.db.dialect.estimateRows(this.db, this.view);
  }

  async close(): Promise<void> {
    const tx = this.tx;
    this.tx = undefined;
    // A statement stopped part-way is reset, so the connection can run others again.
    this.rowsLeft?.return?.();
    await tx?.commit().catch(() => {});
  }

  plan(): PlanItem[] {
    return [{ label: 'mode', value: `snapshot of ${this.what} (no rowid to page by), read by one statement (in WAL mode one read transaction; else one per batch): not resumable, a restart reads from the start` }];
  }
}
