/** Errors that carry an exit code and a stable code; everything else is treated as a bug (exit 1). */
export type ErrorKind = 'config' | 'connect' | 'rejected' | 'transient' | 'fatal' | 'input';

export const EXIT = { ok: 0, fatal: 1, config: 2, connect: 3, rejected: 4 } as const;

export class BridgeError extends Error {
  readonly kind: ErrorKind;
  readonly hint: string | undefined;
  /** Id of the message that caused it (32 hex digits), when one did. */
  messageId: string | undefined;
  /** A rejection because the row's unique key is already in the target (set by the kind's classifier). */
  duplicateKey = false;

  constructor(kind: ErrorKind, message: string, opts: { cause?: unknown; hint?: string; messageId?: string } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.kind = kind;
    this.hint = opts.hint;
    this.messageId = opts.messageId;
    this.name = 'BridgeError';
  }

  /** The same error, its message prefixed with the side it happened on (source or sink). */
  on(side: 'source' | 'sink'): BridgeError {
    if (this.kind === 'rejected' || this.kind === 'config' || /^(source|sink): /.test(this.message)) return this;
    return new BridgeError(this.kind, `${side}: ${this.message}`, { cause: this.cause, hint: this.hint, messageId: this.messageId });
  }

  get exitCode(): number {
    switch (this.kind) {
      case 'config':
        return EXIT.config;
      case 'connect':
      case 'transient': // retries exhausted: the endpoint stayed unreachable
        return EXIT.connect;
      case 'rejected':
      case 'input':
        return EXIT.rejected;
      default:
        return EXIT.fatal;
    }
  }
}

/** A usage or configuration mistake: exit 2, before anything is written. */
export const configError = (message: string, hint?: string): BridgeError =>
  new BridgeError('config', message, hint === undefined ? {} : { hint });

/** Cannot reach or authenticate to an endpoint: exit 3. */
export const connectError = (message: string, cause?: unknown, hint?: string): BridgeError =>
  new BridgeError('connect', message, { cause, ...(hint === undefined ? {} : { hint }) });

/** A failure worth retrying with backoff (connection loss, timeout, deadlock, 5xx). */
export const transientError = (message: string, cause?: unknown): BridgeError =>
  new BridgeError('transient', message, { cause });

/** The sink refused a message for good (constraint, type): exit 4 unless a dead-letter sink takes it. */
export const rejectedError = (message: string, cause?: unknown, messageId?: string): BridgeError =>
  new BridgeError('rejected', message, { cause, ...(messageId === undefined ? {} : { messageId }) });

/** Whether the error, or one it was made from, is a unique key already in the target. */
export function isDuplicateKey(e: unknown): boolean {
  for (let c = e, depth = 0; c && depth < 8; c = (c as Error).cause, depth++) if (c instanceof BridgeError && c.duplicateKey) return true;
  return false;
}

export const isBridgeError = (e: unknown): e is BridgeError => e instanceof BridgeError;

export const isRetryable = (e: unknown): boolean => isBridgeError(e) && e.kind === 'transient';
