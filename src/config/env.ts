import { configError } from '../core/errors.js';

/** `${NAME}` and `${NAME:-default}`; `${payload:f}` / `${metadata:k}` are insert_query tokens and stay. */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const TOKEN_KINDS = new Set(['payload', 'metadata']);

/**
 * Replaces environment references in an endpoint or option value, so a password can live in the
 * environment: written in single quotes ('postgres://app:${PGPASS}@db/app'), it never appears in
 * the command line that `ps` and /proc show. An unset variable without a default is a config error.
 */
export function interpolate(text: string, env: NodeJS.ProcessEnv = process.env, where = 'an endpoint', url = false): string {
  if (!text.includes('${')) return text;
  const encoded = url ? urlValueSpans(text) : [];
  return text.replace(REF, (whole, name: string, fallback: string | undefined, offset: number) => {
    if (TOKEN_KINDS.has(name)) return whole;
    const v = env[name];
    const value = v !== undefined && v !== '' ? v : fallback;
    if (value === undefined) throw configError(`environment variable ${name} (in ${where}) is not set: export it, or write \${${name}:-default}`);
    // A generated password holds @ / ? # % : its text, not URL syntax (p@ss:w/rd#1?% failed as "not valid percent-encoding").
    return encoded.some(([from, to]) => offset >= from && offset < to) ? encodeURIComponent(value) : value;
  });
}

/**
 * Where, in an endpoint URL as written, a filled-in value is a value, not URL syntax: the userinfo
 * (user:password before the host's @) and each query value. Elsewhere (a whole URL in one
 * variable, a host, a path) the value is taken as written.
 */
function urlValueSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  const start = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0].length;
  const query = text.indexOf('?');
  if (start !== undefined) {
    const end = [text.indexOf('/', start), query, text.indexOf('#', start)].filter((i) => i >= 0).reduce((a, b) => Math.min(a, b), text.length);
    const at = text.lastIndexOf('@', end - 1);
    if (at >= start) spans.push([start, at]);
  }
  if (query >= 0) {
    const pairs = /([^&=]*)=([^&]*)/g;
    const rest = text.slice(query + 1);
    for (let m: RegExpExecArray | null; (m = pairs.exec(rest)); ) {
      if (m[0] === '') pairs.lastIndex++;
      else spans.push([query + 1 + m.index + m[1]!.length + 1, query + 1 + m.index + m[0].length]);
    }
  }
  return spans;
}
