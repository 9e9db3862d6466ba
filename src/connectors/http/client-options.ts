import { readFileSync } from 'node:fs';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { TlsConfig } from '../../config/tls-spec.js';
import { configError } from '../../core/errors.js';

/** A header Node would refuse at send time is a config mistake, not a transient failure to retry. */
export function checkCustomHeaders(headers: Record<string, unknown> | undefined): void {
  for (const [k, v] of Object.entries(headers ?? {})) {
    try {
      validateHeaderName(k);
    } catch {
      throw configError(`custom_headers name ${JSON.stringify(k)} is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_\`|~ only, no spaces)`);
    }
    try {
      validateHeaderValue(k, String(v));
    } catch {
      throw configError(`custom_headers value of ${k} is not a valid HTTP header value (no newlines or control characters)`);
    }
  }
}

/** The HTTP client's TLS options (undici connect options) from the tls field. */
export function clientTls(t: TlsConfig | undefined, warn: (s: string) => void): Record<string, unknown> {
  if (!t) return {};
  const read = (p: string | undefined, what: string): Buffer | undefined => {
    if (!p) return undefined;
    try {
      return readFileSync(p);
    } catch (e) {
      throw configError(`tls.${what} cannot be read: ${(e as Error).message}`);
    }
  };
  if (t.accept_invalid_certs) warn('tls.accept_invalid_certs is set: the server certificate is not verified (insecure)');
  const out: Record<string, unknown> = { rejectUnauthorized: !t.accept_invalid_certs };
  const ca = read(t.ca_file, 'ca_file');
  const cert = read(t.cert_file, 'cert_file');
  const key = read(t.key_file, 'key_file');
  if (ca) out.ca = ca;
  if (cert) out.cert = cert;
  if (key) out.key = key;
  if (t.cert_password) out.passphrase = t.cert_password;
  return out;
}
