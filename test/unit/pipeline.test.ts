import { describe, expect, it } from 'vitest';
import { transientError, rejectedError } from '../../src/core/errors.js';
import { Message } from '../../src/core/message.js';
import type { Sink, Source, SourceBatch } from '../../src/core/route.js';
import { runRoute } from '../../src/pipeline/run.js';
import { StatsHub } from '../../src/stats/hub.js';

/** An in-memory source of numbered messages that records acks and releases. */
function numbers(total: number, log: string[]): Source {
  let next = 0;
  return {
    durablePosition: true,
    open: async () => {},
    close: async () => {},
    next: async (max): Promise<SourceBatch | null> => {
      if (next >= total) return null;
      const from = next;
      const n = Math.min(max, total - next);
      next += n;
      const messages = Array.from({ length: n }, (_, i) => new Message(String(from + i)));
      return {
        messages,
        position: String(from + n - 1),
        ack: async () => {
          log.push(`ack ${from + n - 1}`);
        },
        release: async () => {
          log.push(`release ${from + n - 1}`);
        },
      };
    },
  };
}

function collecting(log: string[], opts: { failFirst?: number; rejectAt?: number; slowMs?: number } = {}): Sink & { got: string[] } {
  let failures = opts.failFirst ?? 0;
  const got: string[] = [];
  return {
    got,
    open: async () => {},
    close: async () => {},
    write: async (ms) => {
      if (opts.slowMs) await new Promise((r) => setTimeout(r, opts.slowMs));
      if (failures > 0) {
        failures--;
        throw transientError('connection lost');
      }
      if (opts.rejectAt !== undefined && ms.some((m) => m.text() === String(opts.rejectAt))) throw rejectedError('constraint');
      for (const m of ms) got.push(m.text());
      log.push(`write ${ms[ms.length - 1]!.text()}`);
    },
  };
}

const run = (source: Source, sink: Sink, extra: Partial<Parameters<typeof runRoute>[0]> = {}) =>
  runRoute({ source, sink, mode: 'copy', batchSize: 10, readAhead: 2, maxRetries: 5, stats: new StatsHub(), stop: new AbortController().signal, ...extra });

describe('the pipeline', () => {
  it('writes in order and acks each batch only after its write, in order', async () => {
    const log: string[] = [];
    const sink = collecting(log);
    const r = await run(numbers(35, log), sink);
    expect(r.rows).toBe(35);
    expect(sink.got).toEqual(Array.from({ length: 35 }, (_, i) => String(i)));
    for (const pos of ['9', '19', '29', '34']) expect(log.indexOf(`ack ${pos}`)).toBeGreaterThan(log.indexOf(`write ${pos}`));
    expect(log.filter((l) => l.startsWith('ack'))).toEqual(['ack 9', 'ack 19', 'ack 29', 'ack 34']);
  });

  it('retries transient sink failures, then delivers', async () => {
    const log: string[] = [];
    const sink = collecting(log, { failFirst: 2 });
    const stats = new StatsHub();
    await run(numbers(20, log), sink, { stats });
    expect(sink.got).toHaveLength(20);
    expect(stats.retries).toBe(2);
  });

  it('a rejection stops the route: nothing after it is acked, read-ahead batches are released', async () => {
    const log: string[] = [];
    await expect(run(numbers(50, log), collecting(log, { rejectAt: 15 }))).rejects.toThrow('constraint');
    expect(log).toContain('ack 9');
    expect(log.some((l) => l === 'ack 19' || l === 'ack 29')).toBe(false);
    expect(log).toContain('release 19');
  });

  it('stop finishes the batch in flight and releases the rest', async () => {
    const log: string[] = [];
    const stop = new AbortController();
    const sink = collecting(log, { slowMs: 30 });
    const p = run(numbers(1000, log), sink, { stop: stop.signal });
    setTimeout(() => stop.abort(), 50);
    const r = await p;
    expect(r.stopped).toBe(true);
    expect(r.rows).toBeGreaterThan(0);
    expect(r.rows).toBeLessThan(1000);
    const lastWrite = log.filter((l) => l.startsWith('write')).pop()!.split(' ')[1];
    expect(log).toContain(`ack ${lastWrite}`);
  });

  it('--limit stops reading after about n messages', async () => {
    const log: string[] = [];
    const sink = collecting(log);
    const r = await run(numbers(100, log), sink, { limit: 25 });
    expect(r.rows).toBe(25);
  });
});
