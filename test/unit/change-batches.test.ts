import { expect, it } from 'vitest';
import { Message } from '../../src/core/message.js';
import type { Item } from '../../src/connectors/sql/capture/change-batches.js';
import { takeTransactions } from '../../src/connectors/sql/capture/change-batches.js';

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

it('a transaction too long to hold is released in parts before its commit: the socket pauses at the limit, no part claims a commit, the last part does', async () => {
  const { ReleasedChanges } = await import('../../src/connectors/sql/capture/change-batches.js');
  const flow: string[] = [];
  const r = new ReleasedChanges(100, { pause: () => flow.push('pause'), resume: () => flow.push('resume') }, (c) => `lsn ${c}`);
  const part = (from: number, n: number): Item[] => Array.from({ length: n }, (_, i) => ({ m: new Message(`p${from + i}`) }));
  r.push(part(0, 150));
  expect(r.partial).toBe(true);
  expect(flow).toEqual(['pause']);
  const confirmed: bigint[] = [];
  const first = r.batch(10, false, (lsn) => confirmed.push(lsn), () => {});
  expect(first.messages.length).toBe(150);
  expect(flow).toEqual(['pause', 'resume']);
  await first.ack();
  expect(confirmed).toEqual([]);
  r.push([...part(150, 5), { commit: 9n }]);
  expect(r.partial).toBe(false);
  const last = r.batch(10, false, (lsn) => confirmed.push(lsn), () => {});
  expect(last.messages.map((m) => String(m.payload))).toEqual(['p150', 'p151', 'p152', 'p153', 'p154']);
  await last.ack();
  expect(confirmed).toEqual([9n]);
});
