import { describe, expect, it } from 'vitest';
import type { SourceBatch } from '../../src/core/route.js';
import { AckTracker, type AckHooks, type WriteOutcome } from '../../src/pipeline/ack-tracker.js';

/** A write whose end the test decides. */
function write(): { done: Promise<WriteOutcome>; ok(): void; fail(e: Error): void } {
  let resolve!: (o: WriteOutcome) => void;
  const done = new Promise<WriteOutcome>((r) => (resolve = r));
  return { done, ok: () => resolve({ dead: 0, replies: undefined }), fail: (error) => resolve({ error }) };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

function setup(strict: boolean, concurrency: number, o: { answers?: boolean; slowAck?: number } = {}) {
  const events: string[] = [];
  const batch = (name: string): SourceBatch => ({
    messages: [],
    ack: async () => {
      events.push(`ack ${name} start`);
      if (o.slowAck) await new Promise((r) => setTimeout(r, o.slowAck));
      events.push(`ack ${name}`);
    },
    ...(o.answers ? { fail: async () => void events.push(`answered ${name}`) } : {}),
  });
  const hooks: AckHooks = {
    written: () => {},
    ack: (b) => b.ack(),
    answered: (b, e) => b.fail!(e),
    isStop: () => false,
  };
  return { events, batch, tracker: new AckTracker(strict, concurrency, hooks) };
}

describe('AckTracker', () => {
  it('acknowledges in batch order when writes finish out of order (the contiguous prefix)', async () => {
    const { events, batch, tracker } = setup(false, 3);
    const [w1, w2, w3] = [write(), write(), write()];
    await tracker.add(batch('1'), w1.done);
    await tracker.add(batch('2'), w2.done);
    const third = tracker.add(batch('3'), w3.done); // the third fills the 3 slots: waits for the oldest
    w3.ok();
    w2.ok();
    await tick();
    await tracker.settleFinished();
    await tracker.idle();
    expect(events).toEqual([]); // 2 and 3 are written, but 1 is not: nothing is acknowledged
    w1.ok();
    await third;
    await tracker.drain();
    expect(events.filter((e) => !e.endsWith('start'))).toEqual(['ack 1', 'ack 2', 'ack 3']);
  });

  it('draining with a later write already finished still acknowledges the earlier one first', async () => {
    const { events, batch, tracker } = setup(false, 3);
    const [w1, w2] = [write(), write()];
    await tracker.add(batch('1'), w1.done);
    await tracker.add(batch('2'), w2.done);
    w2.ok();
    await tick();
    const drained = tracker.drain();
    await tick();
    expect(events).toEqual([]);
    w1.ok();
    await drained;
    expect(events.filter((e) => !e.endsWith('start'))).toEqual(['ack 1', 'ack 2']);
  });

  it('strict: the next write starts only after every earlier acknowledgement finished', async () => {
    const { events, batch, tracker } = setup(true, 1, { slowAck: 30 });
    const w1 = write();
    w1.ok();
    await tracker.add(batch('1'), w1.done);
    await tracker.beforeWrite();
    events.push('write 2 starts');
    expect(events).toEqual(['ack 1 start', 'ack 1', 'write 2 starts']);
  });

  it('not strict: the next write may start while an acknowledgement runs', async () => {
    const { events, batch, tracker } = setup(false, 1, { slowAck: 30 });
    const w1 = write();
    w1.ok();
    await tracker.add(batch('1'), w1.done);
    await tracker.beforeWrite();
    events.push('write 2 starts');
    expect(events).toEqual(['ack 1 start', 'write 2 starts']);
    await tracker.drain();
  });

  it('holds at most `concurrency` writes in flight', async () => {
    const { batch, tracker } = setup(false, 2);
    const [w1, w2] = [write(), write()];
    await tracker.add(batch('1'), w1.done);
    let returned = false;
    const second = tracker.add(batch('2'), w2.done).then(() => (returned = true));
    await tick();
    expect(returned).toBe(false);
    expect(tracker.inFlight).toBe(2);
    w1.ok();
    await second;
    expect(tracker.inFlight).toBe(1);
    w2.ok();
    await tracker.drain();
  });

  it('a failed write of a source that answers failures is answered, and the batches after it are acknowledged', async () => {
    const { events, batch, tracker } = setup(false, 3, { answers: true });
    const [w1, w2, w3] = [write(), write(), write()];
    await tracker.add(batch('1'), w1.done);
    await tracker.add(batch('2'), w2.done);
    const p = tracker.add(batch('3'), w3.done);
    w1.ok();
    w2.fail(new Error('rejected'));
    w3.ok();
    expect(await p).toEqual([]);
    expect(await tracker.drain()).toEqual([]);
    expect(events.filter((e) => e.startsWith('ack') && !e.endsWith('start'))).toEqual(['ack 1', 'ack 3']);
    expect(events).toContain('answered 2');
    expect(tracker.failed).toBe(false);
  });

  it('any other failed write stops acknowledging: it and every batch after it are given back', async () => {
    const { events, batch, tracker } = setup(false, 3);
    const [w1, w2, w3] = [write(), write(), write()];
    const b = [batch('1'), batch('2'), batch('3')];
    await tracker.add(b[0]!, w1.done);
    await tracker.add(b[1]!, w2.done);
    const p = tracker.add(b[2]!, w3.done);
    w3.ok();
    w2.fail(new Error('disk full'));
    w1.ok();
    const back = [...(await p), ...(await tracker.drain())];
    expect(back).toEqual([b[1], b[2]]);
    expect(events.filter((e) => !e.endsWith('start'))).toEqual(['ack 1']);
    expect((tracker.writeError as Error).message).toBe('disk full');
  });

  it('a failed acknowledgement stops the ones after it', async () => {
    const events: string[] = [];
    const tracker = new AckTracker(false, 3, {
      written: () => {},
      ack: async (b) => b.ack(),
      answered: async () => {},
      isStop: () => false,
    });
    const mk = (n: string, fails = false): SourceBatch => ({
      messages: [],
      ack: async () => {
        if (fails) throw new Error(`ack ${n} failed`);
        events.push(`ack ${n}`);
      },
    });
    for (const [n, fails] of [['1', false], ['2', true], ['3', false]] as const) {
      const w = write();
      w.ok();
      await tracker.add(mk(n, fails), w.done);
    }
    await tracker.drain();
    expect(events).toEqual(['ack 1']);
    expect((tracker.ackError as Error).message).toBe('ack 2 failed');
  });
});
