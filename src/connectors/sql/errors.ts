import { BridgeError, type ErrorKind } from '../../core/errors.js';

const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/** True for errors of the network, not of the database's answer. */
export function isNetworkError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string' && NET_CODES.has(code)) return true;
  const msg = (e as Error)?.message ?? '';
  return /Connection terminated|connection is closed|Connection lost|socket hang up|read ECONNRESET|Can't add new command when connection is in closed state|closed state|not queryable|terminating connection/i.test(msg);
}

/** A certificate or TLS handshake failure: the server cannot be trusted (exit 3, never retried). */
export function isTlsError(e: unknown): boolean {
  const code = String((e as { code?: unknown })?.code ?? '');
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO/.test(code) || /certificate|SSL routines|does not support SSL/i.test((e as Error)?.message ?? '');
}

/** Wraps a driver error keeping it as `cause` (every server field stays reachable). */
export function wrap(kind: ErrorKind, e: unknown, prefix = '', duplicateKey = false): BridgeError {
  if (e instanceof BridgeError) return e;
  const msg = (e as Error)?.message ?? String(e);
  const err = new BridgeError(kind, prefix + msg, { cause: e });
  err.duplicateKey = duplicateKey;
  return err;
}
