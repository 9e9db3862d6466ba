import { BridgeError } from '../../core/errors.js';

/** A request that got no whole answer within request_timeout_ms: transient, like any timeout. */
export class TimedOut extends BridgeError {
  constructor(message: string, cause?: unknown) {
    super('transient', message, { cause });
  }
}

/** undici's own timeouts (headersTimeout, bodyTimeout between chunks of a streamed answer). */
export const isUndiciTimeout = (e: unknown): boolean => ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].includes((e as { code?: string })?.code ?? '');

/**
 * Counts requests to the host that timed out in a row, across batches and retries. A peer that
 * accepts connections and then stalls would otherwise make every message of a batch wait out its
 * own timeout, `batch_concurrency` at a time, on every attempt (hours for a large batch). Once
 * `limit` timeouts follow each other with no finished answer between them, the breaker opens: the
 * write stops sending and fails with the last timeout, and the next attempt sends one request
 * alone (a probe) before the others.
 */
export class StallBreaker {
  private inARow = 0;

  constructor(private readonly limit: number) {}

  /** Open: the last `limit` requests or more all timed out; send one probe before the others. */
  get open(): boolean {
    return this.inARow >= this.limit;
  }

  /** A whole answer arrived (any status): the peer is alive. */
  answered(): void {
    this.inARow = 0;
  }

  /** A timeout; returns the error to end the write with once the breaker is open, else undefined. */
  timedOut(e: TimedOut): TimedOut | undefined {
    this.inARow++;
    if (!this.open) return undefined;
    return new TimedOut(`${e.message}; ${this.inARow} requests in a row timed out, so sending stopped rather than waiting out each message`, e.cause);
  }
}
