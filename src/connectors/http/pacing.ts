import { BridgeError, configError } from '../../core/errors.js';
import { sleep } from '../../core/wakeup.js';

/** Pauses in a row, with no 2xx in between, that are waited without counting as failed retries. */
export const FREE_PAUSES = 10;

/** How long a Retry-After value asks to wait (ms): delta-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A 429/503 that said when to come back: transient, so if it reaches the retry loop it is an ordinary retry. */
export class PeerAskedToWait extends BridgeError {
  constructor(
    message: string,
    readonly askedMs: number,
    readonly status: number,
  ) {
    super('transient', message);
  }
}

/**
 * Keeps the sink off a host that asked it to wait (429/503 with Retry-After): no request to it
 * starts before the asked time, capped at `maxMs`. Such a wait is the peer pacing us, not a
 * failure, so it does not use up --max-retries — but only FREE_PAUSES times in a row without a
 * delivery, so a peer that answers 429 forever still ends a copy.
 */
export class Pacer {
  private notBefore = 0;
  private pausesInARow = 0;

  constructor(
    private readonly maxMs: number,
    private readonly warn: (text: string) => void,
  ) {}

  /** A 2xx: the peer takes messages again. */
  delivered(): void {
    this.pausesInARow = 0;
  }

  /** Records the asked pause; true when the message should simply be sent again after it. */
  pause(e: PeerAskedToWait, host: string): boolean {
    const now = Date.now();
    const wait = Math.min(e.askedMs, this.maxMs);
    // Answers to requests already in flight when the pause began belong to that pause.
    if (now >= this.notBefore) {
      this.pausesInARow++;
      const capped = wait < e.askedMs ? `its Retry-After asks ${e.askedMs} ms; waiting ${wait} ms (retry_after_max_ms)` : `waiting ${wait} ms as its Retry-After asks`;
      const counted = this.pausesInARow > FREE_PAUSES ? `, counted as a retry after ${FREE_PAUSES} waits in a row without a delivery` : ' (not counted as a retry)';
      this.warn(`HTTP ${e.status} from ${host}: ${capped}${counted}`);
    }
    this.notBefore = Math.max(this.notBefore, now + wait);
    return this.pausesInARow <= FREE_PAUSES;
  }

  /** Resolves once the host may be sent to (at once when it never asked to wait). */
  async ready(signal: AbortSignal): Promise<void> {
    const wait = this.notBefore - Date.now();
    if (wait > 0) await sleep(wait, signal);
  }
}

/** A peer that answers with a redirect: the sink's URL is out of date, for every message (not a rejection of one: all would go to the dead letters). */
export function redirected(target: string, host: string, status: number, location: string | string[] | undefined): BridgeError {
  const to = typeof location === 'string' ? new URL(location, target).href : undefined;
  return configError(`${host} answered HTTP ${status}, a redirect${to ? ` to ${to}` : ' (no Location)'}: bridge does not send a message again to another address; set the sink's URL to it`);
}
