import { expect, it } from 'vitest';
import { Message } from '../../src/core/message.js';
import type { Item } from '../../src/connectors/postgres/cdc-changes.js';
import { takeTransactions } from '../../src/connectors/postgres/cdc-batches.js';

/** Released items of transactions of the given sizes, committed at LSN 1, 2, 3… */
const released = (...sizes: number[]): Item[] =>
  sizes.flatMap((n, t) => [...Array.from({ length: n }, (_, i) => ({ m: new Message(`${t}.${i}`) })), { commit: BigInt(t + 1) }]);
const shape = (items: Item[], max: number, strict = false, wholeMax = 1000) => {
  const r = takeTransactions(items, max, strict, wholeMax);
  return { n: r.messages.length, commit: r.commit, used: r.used, split: r.split };
};

it('batches end on a commit: small transactions share a batch, a later one that does not fit waits whole', () => {
  expect(shape(released(3, 4, 5), 10)).toEqual({ n: 7, commit: 2n, used: 9, split: false });
  expect(shape(released(3, 4), 10)).toEqual({ n: 7, commit: 2n, used: 9, split: false });
});

it('a transaction longer than the batch size is one batch, whole', () => {
  expect(shape(released(25, 2), 10)).toEqual({ n: 25, commit: 1n, used: 26, split: false });
});

it('a transaction longer than the whole-transaction cap is cut there, its commit not claimed', () => {
  expect(shape(released(30), 10, false, 20)).toEqual({ n: 20, commit: undefined, used: 20, split: true });
});

it('under --limit the batch keeps to max, inside a transaction if need be', () => {
  expect(shape(released(25), 10, true)).toEqual({ n: 10, commit: undefined, used: 10, split: false });
});
