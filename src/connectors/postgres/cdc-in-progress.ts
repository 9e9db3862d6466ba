import type { Message } from '../../core/message.js';
import type { HeldPart } from '../../core/route.js';
import { TRANSACTION_PART, type Item, type ReleasedChanges } from '../sql/capture/change-batches.js';
import type { ChangeAssembler } from './cdc-changes.js';
import type { PgOutputMessage } from './pgoutput.js';

interface Streamed {
  xid: number;
  /** The place of its next change (message ids: `pg:<table>:xid<xid>:<n>`). */
  index: number;
  /** Messages released in its parts (the summary counts them once it commits). */
  count: number;
  /** Subtransactions with captured changes: rolling one back undoes changes already released. */
  subxids: Set<number>;
}

/**
 * Transactions PostgreSQL streams while they are in progress (pgoutput protocol 2, `streaming on`,
 * PostgreSQL 14+). Without it the server decodes a large transaction whole, spilling it to disk,
 * before sending its first change, and a mirror applies it only after that: decode time plus apply
 * time. Streamed, its changes come in blocks as they are decoded, and each block's become held
 * parts (SourceBatch.held) that the sink applies into a transaction it keeps open; the stream's
 * commit commits it, its abort rolls it back. So the apply runs beside the decode.
 *
 * What cannot be applied as it comes makes the run read the slot again with transactions sent
 * whole (`reread`, for the rest of the run), so the transaction comes again as an ordinary one
 * and the sink rolls back what it held: a savepoint rolled back after changing captured rows, a
 * second transaction streamed while one is held, a column change inside one, a part the sink
 * failed to write (a rejected value then goes where ordinary transactions' go).
 */
export class InProgress {
  /** The transaction held: the one streamed in progress with captured changes. */
  private open: Streamed | undefined;
  /** The xid of the stream block being received. */
  private block: number | undefined;
  /** A reread is asked for: nothing more of this stream is used (what came is read again). */
  private stopped = false;

  constructor(
    private readonly changes: ChangeAssembler,
    private readonly release: (items: Item[]) => void,
    private readonly reread: (reason: string) => void,
    /** Which stream of the run this is: a transaction streamed again after a restart is another held transaction for the sink. */
    private readonly generation: number,
  ) {}

  /** The sink's name of a held transaction: its xid and the stream's generation. */
  private tx = (xid: number): string => `xid${xid}.${this.generation}`;

  /** Whether the stream is inside a transaction in progress (a position past its start is not confirmed on keepalives). */
  get active(): boolean {
    return this.open !== undefined;
  }

  /** Takes a message of the stream: true when it was one of streaming's (or the stream is being left), false for an ordinary transaction's. */
  onMessage(msg: PgOutputMessage, walStart: bigint, xid: number | undefined): boolean {
    if (this.stopped) return true;
    switch (msg.tag) {
      case 'stream-start':
        this.block = msg.xid;
        this.changes.enterBlock(msg.xid, this.open?.xid === msg.xid ? this.open.index : 0);
        return true;
      case 'stream-stop':
        return this.blockEnds();
      case 'stream-commit':
        if (this.open?.xid !== msg.xid) return true; // no captured change (another table's, or another database's)
        // Streamed again after a restart though it was applied before (its commit's confirmation was lost with the connection): what was held again is rolled back.
        if (this.changes.handedBefore(msg.commitLsn)) this.releasePart({ tx: this.tx(msg.xid), end: 'abort' }, []);
        else this.releasePart({ tx: this.tx(msg.xid), end: 'commit', count: this.open.count }, [], msg.endLsn);
        this.open = undefined;
        return true;
      case 'stream-abort':
        if (this.open?.xid !== msg.xid) return true;
        if (msg.subxid === msg.xid) {
          this.releasePart({ tx: this.tx(msg.xid), end: 'abort' }, []);
          this.open = undefined;
          return true;
        }
        // A savepoint rolled back: harmless unless it had changed captured rows, which may be written already.
        return this.open.subxids.has(msg.subxid) ? this.stop(`a savepoint of transaction ${msg.xid} was rolled back after changing captured rows`) : true;
      default:
        return this.block === undefined ? false : this.change(msg, walStart, xid, this.block);
    }
  }

  /**
   * A message inside a block. The server streams every large transaction of the database, most of
   * them without a change of the captured tables: one becomes the held transaction with its first
   * captured change, and a second one with captured changes while it is held cannot be held too.
   */
  private change(msg: PgOutputMessage, walStart: bigint, xid: number | undefined, block: number): boolean {
    if (msg.tag === 'relation' && this.changes.relationChanged(msg.relation)) return this.stop(`the columns of ${msg.relation.schema}.${msg.relation.name} changed inside transaction ${block}`);
    const before = this.changes.openLength;
    this.changes.onMessage(msg, walStart);
    if (this.changes.openLength === before) return true;
    this.open ??= { xid: block, index: 0, count: 0, subxids: new Set() };
    if (this.open.xid !== block) return this.stop(`transactions ${this.open.xid} and ${block} both changed captured tables while in progress`);
    if (xid !== undefined && xid !== block) this.open.subxids.add(xid);
    if (this.changes.openLength >= TRANSACTION_PART) this.releasePart({ tx: this.tx(block) }, this.taken(this.changes.takeOpen()));
    return true;
  }

  /** A block ends: its changes not yet released become a part (a schema message too: the sink compares its table's columns, and refuses to change them inside a transaction held open, where DDL would lock out the other writes). */
  private blockEnds(): true {
    const { items, index } = this.changes.leaveBlock();
    const open = this.open;
    if (open && open.xid === this.block) {
      open.index = index;
      if (items.length) this.releasePart({ tx: this.tx(this.block!) }, this.taken(items));
    }
    this.block = undefined;
    return true;
  }

  private taken = (items: Item[]): Message[] => items.map((i) => (i as { m: Message }).m);

  private releasePart(part: HeldPart, messages: Message[], commit?: bigint): void {
    this.open!.count += messages.length;
    this.release([{ held: { part, messages, ...(commit === undefined ? {} : { commit }) } }]);
  }

  /** Nothing more of this stream is used (a reread is due). */
  halt(): void {
    this.stopped = true;
  }

  private stop(reason: string): true {
    this.stopped = true;
    this.reread(reason);
    return true;
  }
}

/**
 * The change source's side of streaming in progress, across its streams: whether a new stream asks
 * for it, the rollback of a held transaction before a stream read again, and a reread asked for
 * (by a stream event or a part the sink failed), after which the rest of the run reads whole.
 */
export class InProgressRun {
  /** The sink holds transactions open (Source.sendInProgress). */
  asked = false;
  /** Why the rest of the run reads transactions whole. */
  private wholeBecause: string | undefined;
  /** A reread is due: the stream restarts from the slot's confirmed position. */
  due = false;
  private current: InProgress | undefined;

  constructor(
    private readonly warn: (text: string) => void,
    private readonly wake: () => void,
  ) {}

  private supported = false;

  /** Asked, PostgreSQL 14+, and no --limit (a run that stops part-way through a transaction would hold it for nothing). */
  async prepare(q: (sql: string) => Promise<unknown[][]>, limit: number | undefined): Promise<void> {
    this.supported = this.asked && limit === undefined && Number((await q('SHOW server_version_num'))[0]?.[0]) >= 140000;
  }

  /** Whether a new stream asks for transactions in progress (not after a reread in this run). */
  get wanted(): boolean {
    return this.supported && this.wholeBecause === undefined;
  }

  /** Takes a message of the stream when it is streaming's (InProgress.onMessage). */
  onMessage(msg: PgOutputMessage, walStart: bigint, xid: number | undefined): boolean {
    return this.current?.onMessage(msg, walStart, xid) ?? false;
  }

  /** Whether the stream is inside a transaction in progress. */
  get active(): boolean {
    return this.current?.active === true;
  }

  /** The held transaction whose parts were taken and whose end has not settled: the sink may hold it open. */
  private heldTx: string | undefined;
  private generation = 0;

  /**
   * A new stream (`inProgress`: it asked for transactions in progress). What the sink may hold of
   * the last one is rolled back first: its end may never come (dropped with the untaken changes,
   * or streamed again under the new stream's name).
   */
  begin(changes: ChangeAssembler, released: ReleasedChanges, inProgress: boolean, handed: { end: bigint | undefined }): InProgress | undefined {
    if (this.heldTx !== undefined) released.push([{ held: { part: { tx: this.heldTx, end: 'abort' }, messages: [] } }]);
    if (this.due) changes.shapesSeen?.forget(); // the column changes the lost part showed come again
    this.due = false;
    released.held = {
      taken: (part) => void (part.end || (this.heldTx = part.tx)),
      settled: (part) => {
        if (part.end && part.tx === this.heldTx) this.heldTx = undefined;
        this.wake();
      },
      failed: (part, error, before) => {
        // Its commit was handed out: the batches handed out end before it again (a stream read again skips only those).
        if (before) handed.end = before.commit;
        this.reread(`the sink could not apply a part of transaction ${part.tx.replace(/^xid(\d+)\..*$/, '$1')} (${(error as Error).message})`);
      },
    };
    const release = (items: Item[]): void => {
      released.push(items);
      this.wake();
    };
    this.current = inProgress ? new InProgress(changes, release, (reason) => this.reread(reason), ++this.generation) : undefined;
    return this.current;
  }

  private reread(reason: string): void {
    if (this.wholeBecause !== undefined) return;
    this.wholeBecause = reason;
    this.due = true;
    this.current?.halt();
    this.warn(`${reason}: the slot is read again from its confirmed position, and for the rest of this run each transaction is read whole, after its commit (what the sink held of it was rolled back)`);
    this.wake();
  }
}
