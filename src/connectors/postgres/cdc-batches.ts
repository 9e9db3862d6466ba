import type { Message } from '../../core/message.js';
import type { Item } from './cdc-changes.js';

/**
 * Changes of one source transaction beyond which it is applied in parts: its changes are held in
 * memory until its commit anyway, and a sink applies a batch in one transaction (documented).
 */
export const WHOLE_TRANSACTION_MAX = 100_000;

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
