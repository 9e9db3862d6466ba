import { isRetryable } from '../core/errors.js';
import { backoffMs, sleep } from '../core/wakeup.js';

export interface RetryPolicy {
  /** Attempts after the first; Infinity for tail and serve. */
  maxRetries: number;
  signal: AbortSignal;
  onRetry(error: unknown, attempt: number, waitMs: number): void;
}

/** Thrown when the route was asked to stop while an operation was waiting to be retried. */
export class StoppedWhileRetrying extends Error {
  constructor(readonly last: unknown) {
    super('stopped while retrying');
  }
}

/** Runs `fn`, retrying transient failures with backoff; other errors propagate at once. */
export async function withRetry<T>(fn: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isRetryable(e) || attempt >= policy.maxRetries) throw e;
      if (policy.signal.aborted) throw new StoppedWhileRetrying(e);
      const wait = backoffMs(attempt);
      policy.onRetry(e, attempt + 1, wait);
      await sleep(wait, policy.signal);
      if (policy.signal.aborted) throw new StoppedWhileRetrying(e);
    }
  }
}
