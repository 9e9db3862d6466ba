import { createHash, timingSafeEqual } from 'node:crypto';
import { configError } from '../../core/errors.js';
import type { Req } from './responder.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** A refusal before the body is read. */
export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Who may send what (decisions §7): basic auth first — an unauthenticated client learns nothing
 * of routes or methods — then the path (404) and the method (405). The auth scheme is matched
 * case-insensitively (RFC 9110 §11.1) and the credentials in constant time.
 */
export class Admission {
  private readonly credentials: Buffer | undefined;

  constructor(private readonly f: { basic_auth?: unknown[]; path?: string; method?: string }) {
    if (f.basic_auth !== undefined) {
      const [user, pass] = f.basic_auth;
      if (f.basic_auth.length !== 2 || typeof user !== 'string' || typeof pass !== 'string') throw configError('basic_auth must be ["user","password"]');
      this.credentials = digest(`${user}:${pass}`);
    }
  }

  check(req: Req, pathname: string): Refusal | undefined {
    if (this.credentials) {
      const m = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(String(req.headers.authorization ?? ''));
      const given = digest(m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '\u0000');
      if (!timingSafeEqual(given, this.credentials)) return { status: 401, message: 'authentication required', headers: { 'www-authenticate': 'Basic realm="bridge", charset="UTF-8"' } };
    }
    if (this.f.path !== undefined && pathname !== this.f.path) return { status: 404, message: `no route for ${pathname}` };
    const method = this.f.method?.toUpperCase();
    if (method !== undefined && req.method !== method) return { status: 405, message: `method ${req.method} not allowed`, headers: { allow: method } };
    return undefined;
  }
}

/** The request path without its query (cheaper than a URL object per request). */
export function pathOf(req: Req): string {
  const u = req.url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? u : u.slice(0, q);
}
