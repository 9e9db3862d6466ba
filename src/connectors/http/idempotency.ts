import { createHash } from 'node:crypto';
import type { Message } from '../../core/message.js';
import type { Outcome } from './responder.js';

/** What to do with a request that carries an Idempotency-Key. */
export type Earlier =
  /** First time (or the earlier one was not written): write it, and `remember` it. */
  | undefined
  /** Answer with the earlier request's outcome; nothing is written. */
  | { replay: Message; outcome: Outcome }
  /** Answer this error; nothing is written. */
  | { status: number; error: string };

interface Entry {
  digest: string;
  m: Message;
  final: Promise<Outcome>;
  /** Set once the outcome is known: the key is forgotten after this. */
  expires: number;
}

/** Outcomes worth replaying: the sink wrote the message (or refused it for good). Others may be retried. */
const settledForGood = (o: Outcome): boolean => !('status' in o) || o.status === 422;

const PENDING = Symbol('pending');

/** Bounds memory whatever the window: the oldest key goes first beyond this. */
const MAX_KEYS = 100_000;

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a request repeated under the same key
 * within `windowMs` of the first one's outcome is answered with that outcome instead of being
 * written again — the way to retry safely after a 504 whose write may still land. A repeat that
 * arrives while the first is still being written waits for it. Keys live in this process only.
 */
export class IdempotencyKeys {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly windowMs: number) {}

  static digest(body: Buffer | string): string {
    return createHash('sha256').update(body).digest('base64');
  }

  /** The earlier request under `key`, waiting up to `waitMs` for one still being written. */
  async earlier(key: string, digest: string, waitMs: number): Promise<Earlier> {
    for (;;) {
      const e = this.live(key);
      if (!e) return undefined;
      if (e.digest !== digest) return { status: 422, error: 'this Idempotency-Key was used for a request with another body' };
      let timer: NodeJS.Timeout | undefined;
      const o = await Promise.race([e.final, new Promise<typeof PENDING>((r) => (timer = setTimeout(() => r(PENDING), waitMs)))]);
      clearTimeout(timer);
      if (o === PENDING) return { status: 504, error: `the request first sent with this Idempotency-Key is still being written (waited request_timeout_ms, ${waitMs} ms); retry later with the same key` };
      if (this.entries.get(key) === e && settledForGood(o)) return { replay: e.m, outcome: o };
      // The earlier one was not written: this one goes ahead, unless another repeat already did.
      if (this.entries.get(key) === e) this.entries.delete(key);
    }
  }

  /** Remembers the request written under `key`; forgotten if it turns out not written. */
  remember(key: string, digest: string, m: Message, final: Promise<Outcome>): void {
    const now = Date.now();
    // Keys settle roughly in the order they came: drop the expired ones at the front.
    for (const [k, old] of this.entries) {
      if (old.expires > now) break;
      this.entries.delete(k);
    }
    if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
    const e: Entry = { digest, m, final, expires: Infinity };
    this.entries.set(key, e);
    void final.then((o) => {
      if (this.entries.get(key) !== e) return;
      if (settledForGood(o)) e.expires = Date.now() + this.windowMs;
      else this.entries.delete(key);
    });
  }

  private live(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (e && e.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }
}
