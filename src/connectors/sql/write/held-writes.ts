import type { Endpoint } from '../../../config/endpoint.js';
import { transientError } from '../../../core/errors.js';
import { kindEntry } from '../../kinds.js';
import type { HeldPart } from '../../../core/route.js';
import type { Database, HeldTransaction } from '../database.js';

/**
 * The transaction a sink holds open for a source transaction in progress (SourceBatch.held): each
 * part is applied into it, the part that ends it commits it (with the batch's position, pending on
 * the sink's view of the database) or rolls it back. One at a time; the other batches (transactions
 * that commit meanwhile at the source) go through the pool's other connections, as usual.
 */
export class HeldWrites {
  private open: { tx: string; t: HeldTransaction } | undefined;
  /** A transaction whose part failed: rolled back; its later parts change nothing, and its commit is refused (the source reads it again). */
  private lost: string | undefined;

  constructor(
    private readonly db: Database,
    private readonly table: string,
  ) {}

  /** Applies a part (`write` writes its messages, `empty` when it has none) into the transaction held for its source transaction. */
  async apply(part: HeldPart, empty: boolean, write: () => Promise<unknown>): Promise<void> {
    if (this.lost === part.tx) {
      if (part.end === 'commit') throw transientError(`what ${this.table} held of transaction ${part.tx} was rolled back after a failure: the transaction is read again whole`);
      return;
    }
    this.lost = undefined;
    if (part.end === 'abort') {
      // Nothing more of it may be applied: a part still on its way after a failure would start it again without its beginning.
      this.lost = part.tx;
      return this.rollback();
    }
    if (!this.open && part.end && empty) return; // the end of a transaction that had no change of this table (several captured)
    if (this.open && this.open.tx !== part.tx) {
      await this.rollback();
      throw transientError(`a part of transaction ${part.tx} came while ${this.table} held transaction ${this.open.tx} open: both are read again whole`);
    }
    try {
      if (!this.open) this.leavesAConnection(part.tx);
      this.open ??= { tx: part.tx, t: await this.db.begin() };
      this.db.held = this.open.t;
      try {
        await write();
      } finally {
        this.db.held = undefined;
      }
      if (part.end === 'commit') {
        const { t } = this.open;
        this.open = undefined;
        await t.commit();
      }
    } catch (e) {
      await this.rollback();
      this.lost = part.tx;
      throw e;
    }
  }

  /** The transactions that commit meanwhile need a connection of the pool (shared by the sinks of several captured tables, each holding its own). */
  private leavesAConnection(tx: string): void {
    const { inUse, max } = this.db.stats();
    if (inUse + 1 >= max) throw transientError(`holding transaction ${tx} open in ${this.table} would leave none of max_connections=${max} for the other writes: it is read again whole, after its commit`);
  }

  /** Rolls back what is held (a stop, a failure, the source's abort). */
  async rollback(): Promise<void> {
    const open = this.open;
    this.open = undefined;
    await open?.t.rollback().catch(() => {});
  }
}

/**
 * Whether a database sink holds a transaction open for one in progress: a mirror (columns=auto) into
 * a kind whose writers do not lock each other out, with a second connection for the transactions
 * that commit meanwhile.
 */
export function holdsTransactions(ep: Endpoint): boolean {
  const f = ep.fields;
  const writer = f.columns === 'auto' && f.insert_query === undefined && f.lookup_query === undefined && f.bulk_copy !== true;
  return writer && kindEntry(ep.kind)?.capabilities.includes('held_transactions') === true && Number(f.max_connections ?? 10) >= 2;
}
