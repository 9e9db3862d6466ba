import { configError } from '../core/errors.js';

/** The parts of an endpoint URL. Query values are percent-decoded; `+` stays `+` (SQL needs it). */
export interface ParsedUrl {
  scheme: string;
  username?: string;
  password?: string;
  /** Raw userinfo as written, for redaction. */
  userinfo?: string;
  host: string;
  port?: number;
  /** Path after the authority, without the leading slash, percent-decoded. */
  path: string;
  /** Query pairs in order. */
  query: [string, string][];
  /** The URL without its query, userinfo included. */
  base: string;
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw configError(`${what} is not valid percent-encoding: fix the % escapes`);
  }
}

/** Splits `a=1&b=2` keeping everything after the first `=` as the value. */
export function parseQuery(query: string): [string, string][] {
  const out: [string, string][] = [];
  if (query === '') return out;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq < 0 ? part : part.slice(0, eq), 'a query key');
    const value = eq < 0 ? '' : decode(part.slice(eq + 1), `the value of ${key}`);
    out.push([key, value]);
  }
  return out;
}

/** `scheme://user:pass@host` → `scheme://***@host`, for the rare error that shows what was typed. */
function maskUserinfo(text: string): string {
  return text.replace(/^([^:]*:\/*)[^@]*@/, '$1***@');
}

/**
 * Parses `scheme://[user[:password]@]host[:port][/path][?query]`. Written by hand because WHATWG
 * URL turns `+` into a space in queries and rejects the unencoded SQL users write in insert_query.
 */
export function parseUrl(text: string): ParsedUrl {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/s.exec(text);
  if (!m) throw configError(`endpoint "${maskUserinfo(text).slice(0, 40)}" is not a URL: write scheme://host/... (or - for stdin/stdout)`);
  const scheme = m[1]!.toLowerCase();
  let rest = m[2]!;
  const q = rest.indexOf('?');
  const query = q < 0 ? '' : rest.slice(q + 1);
  if (q >= 0) rest = rest.slice(0, q);
  const base = `${scheme}://${rest}`;
  const slash = rest.indexOf('/');
  let authority = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : decode(rest.slice(slash + 1), 'the URL path');
  const out: ParsedUrl = { scheme, host: '', path, query: parseQuery(query), base };
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    authority = authority.slice(at + 1);
    out.userinfo = userinfo;
    const colon = userinfo.indexOf(':');
    out.username = decode(colon < 0 ? userinfo : userinfo.slice(0, colon), 'the URL user name');
    if (colon >= 0) out.password = decode(userinfo.slice(colon + 1), 'the URL password');
  }
  const v6 = /^\[([^\]]+)\](?::(\d*))?$/.exec(authority);
  const hp = v6 ? [v6[1]!, v6[2]] : /^([^:]*)(?::(\d*))?$/.exec(authority)?.slice(1);
  if (!hp) {
    // Never echoed: with an unencoded '/' in a password, what looks like the host part is the password.
    const hint = /@/.test(rest.slice(slash + 1)) || authority.includes(':') ? ': a password or user name containing / ? # or @ must be percent-encoded (/ as %2F, @ as %40)' : '';
    throw configError(`the host part of the ${scheme}:// URL is not host[:port]${hint}`);
  }
  out.host = hp[0] ?? '';
  if (hp[1] !== undefined && hp[1] !== '') {
    const port = Number(hp[1]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw configError(`port ${hp[1]} of the ${scheme}:// URL must be 1-65535`);
    out.port = port;
  }
  return out;
}
