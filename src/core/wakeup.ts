/** Resolves after `ms`, or early (without throwing) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A reader's single waiter: woken by the next notify() (new data, a stop) or when the signal aborts. */
export class Wakeup {
  private waiter: (() => void) | undefined;

  notify(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  wait(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiter = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/** Decisions §9: 100 ms doubling to 5 s, with ±20 % jitter. */
export function backoffMs(attempt: number, baseMs = 100, maxMs = 5000): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16));
  return Math.round(raw * (0.8 + Math.random() * 0.4));
}
