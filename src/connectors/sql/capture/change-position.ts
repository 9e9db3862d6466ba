import { configError } from '../../../core/errors.js';
import type { Message } from '../../../core/message.js';
import type { CommitPosition, SinkPositions } from '../../../core/route.js';

/** What a sink keeps of a change stream: the end of the last transaction it holds whole, and how much of the next it holds. */
export interface KeptChanges {
  /** The commit (LSN end, binlog sequence) of the last whole transaction, as the source writes it. */
  end: string;
  /** The transaction the sink holds the first `count` changes of (a long one applied in parts), as its ids name it. */
  partial?: { tx: string; count: number };
}

/** How a change source writes a commit, and reads a change's transaction and place back from its id seed. */
export interface ChangeNaming {
  show(commit: bigint): string;
  place(seed: string): { tx: string; n: number } | undefined;
}

interface Stored extends KeptChanges {
  bridge_position: 1;
  source: string;
}

/**
 * A change stream's position as a sink keeps it with its rows (exactly once, issue 28), shared by
 * PostgreSQL's slot and the binlog. A change's id seed names its transaction and its place in it,
 * so the part of a transaction a batch ends inside is named by its last change.
 */
export class ChangeSinkPosition {
  constructor(
    private readonly book: SinkPositions,
    readonly route: string,
    private readonly source: string,
    private readonly o: ChangeNaming,
  ) {}

  static async open(positions: (() => Promise<SinkPositions | undefined>) | undefined, route: string, source: string, o: ChangeNaming): Promise<ChangeSinkPosition | undefined> {
    const book = await positions?.();
    return book ? new ChangeSinkPosition(book, route, source, o) : undefined;
  }

  async load(): Promise<KeptChanges | undefined> {
    const text = await this.book.load(this.route);
    if (text === undefined) return undefined;
    let s: Stored | undefined;
    try {
      s = JSON.parse(text) as Stored;
    } catch {
      s = undefined;
    }
    const where = `${this.book.description} (route ${this.route})`;
    if (s?.bridge_position !== 1 || typeof s.end !== 'string') throw configError(`the position in ${where} is not a bridge position; delete that row to start over`);
    if (s.source !== this.source) throw configError(`the position in ${where} was written for ${s.source}, not ${this.source}: delete that row, or use another slot_name`);
    return { end: s.end, ...(s.partial ? { partial: s.partial } : {}) };
  }

  /** After a batch: the last whole transaction it (or one before it) ended, and the part of the next it holds. */
  commit(end: bigint | undefined, partial: KeptChanges['partial']): CommitPosition | undefined {
    if (end === undefined && !partial) return undefined;
    const stored: Stored = { bridge_position: 1, source: this.source, end: end === undefined ? '' : this.o.show(end), ...(partial ? { partial } : {}) };
    return { route: this.route, text: JSON.stringify(stored) };
  }

  describe(): string {
    return `${this.book.description}, route ${this.route}`;
  }
}

/**
 * Where the batches handed out so far end (ReleasedChanges.batch's position callback): what a
 * sink that keeps positions commits with each, and what a stream restarted within the run skips
 * (those changes are being written already).
 */
export class HandedChanges {
  end: bigint | undefined;
  partial: KeptChanges['partial'];

  constructor(
    readonly naming: ChangeNaming,
    /** The sink's position, when the sink keeps one. */
    public sink: ChangeSinkPosition | undefined = undefined,
  ) {}

  /** A batch was taken: it ends after commit `end`, and inside a transaction when `inside` (its `last` change names which). */
  after(end: bigint | undefined, last: Message | undefined, inside: boolean): CommitPosition | undefined {
    const place = inside && last?.seedText !== undefined ? this.naming.place(last.seedText) : undefined;
    this.end = end;
    this.partial = place ? { tx: place.tx, count: place.n + 1 } : undefined;
    return this.sink?.commit(end, this.partial);
  }
}
