import { readFileSync } from 'node:fs';
import { configError } from '../core/errors.js';
import type { TlsConfig } from './tls-spec.js';

/** A file named by a tls field; one that cannot be read is a config error naming the field. */
export function readTlsFile(path: string | undefined, what: string): Buffer | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (e) {
    throw configError(`tls.${what} cannot be read: ${(e as Error).message}`);
  }
}

/**
 * Node TLS client options (tls.connect: used by pg, mysql2 and undici) from the tls field: CA,
 * client certificate and key with its password, and certificate verification unless
 * accept_invalid_certs, which is warned about.
 */
export function clientTlsOptions(t: TlsConfig, warn: (s: string) => void): Record<string, unknown> {
  if (t.accept_invalid_certs) warn('tls.accept_invalid_certs is set: the server certificate is not verified (insecure)');
  const out: Record<string, unknown> = { rejectUnauthorized: !t.accept_invalid_certs };
  const ca = readTlsFile(t.ca_file, 'ca_file');
  const cert = readTlsFile(t.cert_file, 'cert_file');
  const key = readTlsFile(t.key_file, 'key_file');
  if (ca) out.ca = ca;
  if (cert) out.cert = cert;
  if (key) out.key = key;
  if (t.cert_password) out.passphrase = t.cert_password;
  return out;
}

/** For database drivers: TLS only when it is asked for (required, a CA or a client certificate). */
export function databaseTlsOptions(t: TlsConfig | undefined, warn: (s: string) => void): Record<string, unknown> | undefined {
  if (!t || (!t.required && !t.ca_file && !t.cert_file)) return undefined;
  return clientTlsOptions(t, warn);
}
