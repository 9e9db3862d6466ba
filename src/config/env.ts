import { configError } from '../core/errors.js';

/** `${NAME}` and `${NAME:-default}`; `${payload:f}` / `${metadata:k}` are insert_query tokens and stay. */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const TOKEN_KINDS = new Set(['payload', 'metadata']);

/**
 * Replaces environment references in an endpoint or option value, so a password can live in the
 * environment: written in single quotes ('postgres://app:${PGPASS}@db/app'), it never appears in
 * the command line that `ps` and /proc show. An unset variable without a default is a config error.
 */
export function interpolate(text: string, env: NodeJS.ProcessEnv = process.env, where = 'an endpoint'): string {
  if (!text.includes('${')) return text;
  return text.replace(REF, (whole, name: string, fallback: string | undefined) => {
    if (TOKEN_KINDS.has(name)) return whole;
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    throw configError(`environment variable ${name} (in ${where}) is not set: export it, or write \${${name}:-default}`);
  });
}
