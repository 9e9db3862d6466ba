import { validateHeaderName, validateHeaderValue } from 'node:http';
import { addSecret } from '../../config/redact.js';
import { clientTlsOptions } from '../../config/tls-files.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import type { ParsedUrl } from '../../config/url.js';
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

/**
 * The Authorization header: from basic_auth, or from `user:password@` in the URL (percent-decoded,
 * as browsers and curl read it). Both at once is ambiguous, so it is refused. Every form the
 * credentials may be echoed in is registered as a secret before the first request.
 */
export function basicAuthHeader(basicAuth: unknown[] | undefined, url: ParsedUrl): string | undefined {
  if (basicAuth !== undefined && url.userinfo !== undefined)
    throw configError('the sink URL has user:password@ and basic_auth is given too: keep one (basic_auth, or the credentials in the URL)');
  let user: unknown;
  let pass: unknown;
  if (basicAuth !== undefined) {
    [user, pass] = basicAuth;
    if (basicAuth.length !== 2 || typeof user !== 'string' || typeof pass !== 'string') throw configError('basic_auth must be ["user","password"]');
  } else if (url.userinfo !== undefined) {
    user = url.username ?? '';
    pass = url.password ?? '';
    // Without a password the user name is the credential (an API token), so it is a secret too.
    if (url.password === undefined) addSecret(url.username);
  } else return undefined;
  const token = Buffer.from(`${String(user)}:${String(pass)}`).toString('base64');
  addSecret(`${String(user)}:${String(pass)}`);
  addSecret(token);
  return `Basic ${token}`;
}

/** The request URL: the base without its userinfo (sent as a header instead, never in a URL), plus the query keys that are not fields. */
export function requestUrl(url: ParsedUrl, passthrough: [string, string][]): string {
  const authority = url.base.slice(url.scheme.length + 3);
  const base = url.userinfo === undefined ? url.base : `${url.scheme}://${authority.slice(url.userinfo.length + 1)}`;
  const query = passthrough.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${base}${query ? `?${query}` : ''}`;
}
