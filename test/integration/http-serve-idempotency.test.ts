import { describe, expect, it } from 'vitest';
import { lockedSqlite } from '../helpers/locked-sqlite.js';
import { serve } from '../helpers/serve.js';

/** 504s (the sink did not confirm in time) and what a client that retries them gets written. */
const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
  const r = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const text = await r.text();
  return { status: r.status, headers: r.headers, error: text ? ((JSON.parse(text) as { error?: string }).error ?? '') : '' };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('504 and Idempotency-Key', () => {
  it('a 504 for a message still queued says it was not written, and it never is; one whose write had started says it may still land, and it does', async () => {
    const sink = lockedSqlite();
    const s = await serve(sink.url, 'request_timeout_ms=1000');
    try {
      sink.lock();
      // Writes in flight and batches read ahead take the first requests; the last one waits in the queue.
      const ahead: Promise<Awaited<ReturnType<typeof post>>>[] = [];
      for (let i = 0; i < 4; i++) {
        ahead.push(post(s.url, `{"n":${i},"tag":"ahead"}`));
        await sleep(150);
      }
      const queued = await post(s.url, '{"n":9,"tag":"queued"}');
      const first = await ahead[0]!;
      sink.unlock();
      expect(first.status).toBe(504);
      expect(first.error).toMatch(/its write had started and may still land: retry with the same Idempotency-Key/);
      expect(queued.status).toBe(504);
      expect(queued.error).toMatch(/the message was not written/);
      await Promise.all(ahead);
      await sleep(500);
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    const tags = sink.rows().map((r) => r.tag);
    expect(tags).not.toContain('queued');
    expect(tags[0]).toBe('ahead');
    sink.close();
  });

  it('a client that retries a 504 with the same Idempotency-Key gets the first result and the row is written once; another body under that key is refused', async () => {
    const sink = lockedSqlite();
    const s = await serve(sink.url, 'request_timeout_ms=800');
    const key = { 'idempotency-key': 'order-7781' };
    try {
      sink.lock();
      const first = await post(s.url, '{"n":1,"tag":"order"}', key);
      expect(first.status).toBe(504);
      // Still being written: the retry waits for it, then times out too — without writing.
      const early = await post(s.url, '{"n":1,"tag":"order"}', key);
      expect(early.status).toBe(504);
      expect(early.error).toMatch(/still being written/);
      sink.unlock();
      await sleep(1000);
      const retry = await post(s.url, '{"n":1,"tag":"order"}', key);
      expect(retry.status).toBe(204);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const other = await post(s.url, '{"n":2,"tag":"other body"}', key);
      expect(other.status).toBe(422);
      expect(other.error).toMatch(/another body/);
      // Without the key, a repeat is a new request.
      expect((await post(s.url, '{"n":1,"tag":"order"}')).status).toBe(204);
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(sink.rows()).toEqual([
      { n: 1, tag: 'order' },
      { n: 1, tag: 'order' },
    ]);
    sink.close();
  });

  it('a key whose first request was never written (504 while queued) lets the retry write it, once', async () => {
    const sink = lockedSqlite();
    const s = await serve(sink.url, 'request_timeout_ms=800');
    try {
      sink.lock();
      for (let i = 0; i < 4; i++) {
        void post(s.url, `{"n":${i},"tag":"ahead"}`);
        await sleep(150);
      }
      const first = await post(s.url, '{"n":5,"tag":"keyed"}', { 'idempotency-key': 'k-5' });
      expect(first.error).toMatch(/not written/);
      sink.unlock();
      await sleep(300);
      expect((await post(s.url, '{"n":5,"tag":"keyed"}', { 'idempotency-key': 'k-5' })).status).toBe(204);
      expect((await post(s.url, '{"n":5,"tag":"keyed"}', { 'idempotency-key': 'k-5' })).headers.get('idempotent-replayed')).toBe('true');
    } finally {
      expect((await s.stop()).exitCode).toBe(0);
    }
    expect(sink.rows().filter((r) => r.tag === 'keyed')).toHaveLength(1);
    sink.close();
  });
});
