import type { Message } from '../../../core/message.js';
import type { CommitPosition, HeldPart, SourceBatch } from '../../../core/route.js';

/** A part of a transaction still in progress at the source, a batch of its own (SourceBatch.held); the last one carries the commit. */
export interface HeldItem {
  part: HeldPart;
  messages: Message[];
  commit?: bigint;
}

const heldWeight = (h: HeldItem): number => Math.max(1, h.messages.length);

/**
 * A change source's transaction as it releases it: its messages, then its commit (a number that
 * grows with each commit: an LSN, a binlog sequence); or a part of one in progress (held).
 */
export type Item = { m: Message } | { commit: bigint } | { held: HeldItem };

/**
 * Changes of one source transaction beyond which it is applied in parts: its changes are held in
 * memory until its commit anyway, and a sink applies a batch in one transaction (documented).
 * Measured with one 1M-row UPDATE into NDJSON (scripts/cdc-bench.sh's backlog): 100,000
 * held peaked at 437 MB, 20,000 at 209–237 MB; 10,000 with parts of 4,096 released at 8,192 at
 * 169–187 MB (a PostgreSQL mirror 190–191 MB, against 241 MB), a few per cent slower.
 */
export const WHOLE_TRANSACTION_MAX = 10_000;

/**
 * Changes released and not yet taken before the replication socket pauses (it resumes below half).
 * A reader that took everything is woken by each part released, not by the next second's tick: with
 * that, 10,000 runs as fast as 50,000 (5.0–5.2 s for a 1M-row UPDATE into NDJSON, pg_recvlogical
 * 4.7 s), where it once ran at 35k changes/s, and a limit below a part's size took 62 s.
 */
export const RELEASED_MAX = 8_192;

/** Once a transaction is released in parts, the size of each further part held before release. */
export const TRANSACTION_PART = 4_096;

export interface Taken {
  messages: Message[];
  /** The last commit whose transaction the batch ends (the position it may confirm), if any. */
  commit: bigint | undefined;
  /** Items of `ready` the batch used up. */
  used: number;
  /** The batch ends inside a transaction longer than WHOLE_TRANSACTION_MAX. */
  split: boolean;
}

/**
 * The next batch from the released items: whole source transactions, so that a sink applying a
 * batch in one transaction (a mirror) never shows a state the source never had — as many as fit
 * in `max`, the first one whole however long (up to WHOLE_TRANSACTION_MAX). `strict` (--limit)
 * keeps to `max` instead.
 */
export function takeTransactions(ready: Item[], max: number, strict: boolean, wholeMax = WHOLE_TRANSACTION_MAX): Taken {
  const messages: Message[] = [];
  let commit: bigint | undefined;
  let txFrom = 0; // where the current transaction starts, in messages and in ready
  let txAt = 0;
  let i = 0;
  for (; i < ready.length; i++) {
    const item = ready[i]!;
    if ('held' in item) break; // a batch of its own
    if ('commit' in item) {
      commit = item.commit;
      txFrom = messages.length;
      txAt = i + 1;
      continue;
    }
    if (messages.length >= max) {
      if (strict) break;
      // A later transaction that does not fit waits, whole, for the next batch.
      if (txFrom > 0) {
        messages.length = txFrom;
        return { messages, commit, used: txAt, split: false };
      }
      if (messages.length >= wholeMax) return { messages, commit, used: i, split: true };
    }
    messages.push(item.m);
  }
  return { messages, commit, used: i, split: false };
}

/**
 * The changes released by their commits and not yet taken into batches, in commit order. The
 * socket is paused while too many wait for the sink, so memory stays bounded.
 */
export class ReleasedChanges {
  private ready: Item[] = [];
  private count = 0;
  private paused = false;
  /** Batches handed out and not yet confirmed or given up. */
  inFlight = 0;
  private warned = false;
  /** The last items pushed are a part of a transaction whose commit has not come yet. */
  partial = false;
  /** The last batch taken ended inside a transaction (cut in parts). */
  private cutting = false;
  /** The last commit a batch has taken (what a sink's position stands after, with the part of a transaction after it). */
  private lastCommit: bigint | undefined;
  /** A held transaction's commit is in flight: nothing after it goes out until it is settled (were it to fail, the transaction is read again before what follows). */
  private gated = false;
  /**
   * A held part's write failed (the source reads its transaction again; for its commit, `before`
   * is where the batches handed out ended before it); `settled`: a part was acked or failed.
   */
  held: { taken(part: HeldPart): void; failed(part: HeldPart, error: unknown, before?: { commit: bigint | undefined }): void; settled(part: HeldPart): void } | undefined;
  /** Held parts handed out and not yet settled: a stream restarts only once there are none (what it skips depends on how they end). */
  heldInFlight = 0;

  constructor(
    private readonly limit: number,
    private readonly flow: { pause(): void; resume(): void },
    /** How the progress line shows a commit (`lsn 0/16B3748`, a binlog position). */
    private readonly show: (commit: bigint) => string | undefined,
  ) {}

  /**
   * The next batch; its ack confirms the commit it ends on (`confirm`). The first transaction cut
   * in parts (over WHOLE_TRANSACTION_MAX) is told to `warn`.
   */
  batch(max: number, strict: boolean, confirm: (lsn: bigint) => void, warn: () => void, position?: (commit: bigint | undefined, last: Message | undefined, inside: boolean) => CommitPosition | undefined): SourceBatch {
    const head = this.ready[0];
    if (head && 'held' in head) return this.heldBatch(head.held, confirm, position);
    const { messages, commit, split } = this.take(max, strict);
    if (commit !== undefined) this.lastCommit = commit;
    // The position a sink keeps after this batch: the last commit taken, and whether the batch ends inside a transaction (no commit after its last message).
    const kept = position?.(this.lastCommit, messages[messages.length - 1], this.cutting);
    // Ending without a commit, the batch ends inside a transaction released in parts.
    if ((split || (commit === undefined && messages.length > 0)) && !this.warned) {
      this.warned = true;
      warn();
    }
    this.inFlight++;
    const ack = async (): Promise<void> => {
      this.inFlight--;
      if (commit !== undefined) confirm(commit);
    };
    const shown = commit === undefined ? undefined : this.show(commit);
    const shownAt = shown === undefined ? {} : { position: shown };
    return { messages, ...shownAt, ...(kept ? { commit: kept } : {}), ack, release: async () => void this.inFlight-- };
  }

  /** A part of a transaction in progress, taken out: its commit (the last part) confirms it, and closes the gate until settled. */
  private heldBatch(h: HeldItem, confirm: (lsn: bigint) => void, position?: (commit: bigint | undefined, last: Message | undefined, inside: boolean) => CommitPosition | undefined): SourceBatch {
    this.ready.shift();
    this.count -= heldWeight(h);
    this.flowControl();
    this.inFlight++;
    this.heldInFlight++;
    this.held?.taken(h.part);
    const ends = h.commit !== undefined;
    const before = { commit: this.lastCommit };
    if (ends) this.lastCommit = h.commit;
    this.cutting = false;
    this.gated ||= ends;
    const kept = ends ? position?.(h.commit, undefined, false) : undefined;
    let open = true;
    const settle = (): void => {
      if (!open) return;
      open = false;
      this.inFlight--;
      this.heldInFlight--;
      if (ends) this.gated = false;
      this.held?.settled(h.part);
    };
    const shown = ends ? this.show(h.commit!) : undefined;
    return {
      messages: h.messages,
      held: h.part,
      ...(shown === undefined ? {} : { position: shown }),
      ...(kept ? { commit: kept } : {}),
      ack: async () => {
        settle();
        if (ends) confirm(h.commit!);
      },
      fail: async (e) => {
        if (ends) this.lastCommit = before.commit;
        try {
          this.held?.failed(h.part, e, ends ? before : undefined);
        } finally {
          settle();
        }
      },
      release: async () => settle(),
    };
  }

  /** Messages waiting (none while a held transaction's commit is in flight). */
  get waiting(): number {
    return this.gated ? 0 : this.count;
  }

  get empty(): boolean {
    return this.ready.length === 0;
  }

  clear(): void {
    this.ready = [];
    this.count = 0;
    this.paused = false;
    this.partial = false;
  }

  /** A committed transaction's items (its messages, then its commit), or a part of one (no commit yet). */
  push(tx: Item[]): void {
    for (const item of tx) {
      this.ready.push(item);
      if ('m' in item) this.count++;
      else if ('held' in item) this.count += heldWeight(item.held); // an end without messages still waits to be taken
    }
    const last = tx[tx.length - 1];
    if (last) this.partial = 'm' in last;
    this.flowControl();
  }

  /** The commit at the head when no message comes before it (a transaction without changes of the table). */
  shiftCommit(): bigint | undefined {
    const head = this.ready[0];
    if (!head || !('commit' in head) || this.gated) return undefined;
    this.ready.shift();
    return head.commit;
  }

  /** The next batch (see takeTransactions), taken out. */
  take(max: number, strict: boolean): Taken {
    // The rest of a transaction already cut goes in parts of TRANSACTION_PART, not in batches as large as what waits: fewer changes in flight at once.
    const t = takeTransactions(this.ready, max, strict, this.cutting ? Math.max(max, TRANSACTION_PART) : WHOLE_TRANSACTION_MAX);
    this.cutting = t.commit === undefined && t.messages.length > 0 ? true : t.commit !== undefined ? this.endsInside(t) : this.cutting;
    this.ready.splice(0, t.used);
    this.count -= t.messages.length;
    this.flowControl();
    return t;
  }

  /** A batch that reached a commit still ends inside the next transaction when it took messages after that commit. */
  private endsInside(t: Taken): boolean {
    return t.used > 0 && !('commit' in this.ready[t.used - 1]!);
  }

  private flowControl(): void {
    if (!this.paused && this.count > this.limit) {
      this.flow.pause();
      this.paused = true;
    } else if (this.paused && this.count < this.limit / 2) {
      this.flow.resume();
      this.paused = false;
    }
  }
}
