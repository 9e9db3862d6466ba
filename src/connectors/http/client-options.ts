import { validateHeaderName, validateHeaderValue } from 'node:http';
import { clientTlsOptions } from '../../config/tls-files.js';
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
  return t ? clientTlsOptions(t, warn) : {};
}
