import path from 'node:path';
import { configError } from '../core/errors.js';
import { coerceField } from './coerce.js';
import { interpolate } from './env.js';
import type { ConnectorSpec, FieldSpec, Role } from './fields.js';
import { addSecret, MASKED } from './redact.js';
import { suggest } from './suggest.js';
import { parseQuery, parseUrl, type ParsedUrl } from './url.js';

/** A resolved endpoint: which connector and kind, its typed fields, and how to show it safely. */
export interface Endpoint {
  role: Role;
  spec: ConnectorSpec;
  /** The kind the scheme selects: a database kind (src/connectors/kinds.ts), ndjson, http. */
  kind: string;
  /** Parsed URL of network endpoints (absent for `-`, files and SQLite). */
  url?: ParsedUrl;
  /** File path of SQLite databases and NDJSON files; ':memory:' for an in-memory SQLite. */
  file?: string;
  /** `-`: stdin or stdout. */
  stdio: boolean;
  /** Every field: given values, then defaults. */
  fields: Record<string, unknown>;
  /** Fields the user set explicitly. */
  given: Set<string>;
  /** Query pairs that are not fields: handed to the driver. */
  passthrough: [string, string][];
  /** The endpoint as it may be printed: userinfo and secret fields masked. */
  display: string;
  warnings: string[];
}

export type SpecLookup = (scheme: string) => ConnectorSpec | undefined;

const sideName = (role: Role): string => (role === 'consumer' ? 'source' : 'sink');

/** Splits the forms that are not `scheme://authority` URLs: `-`, sqlite paths, file paths. */
function splitPathForm(text: string, prefix: string): { file: string; query: [string, string][] } {
  const rest = text.slice(prefix.length);
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q);
  let file: string;
  try {
    file = decodeURIComponent(rawPath);
  } catch {
    throw configError(`the path of ${prefix}... is not valid percent-encoding`);
  }
  if (file === '') throw configError(`${prefix} needs a path, e.g. ${prefix}./data.db`);
  return { file: file === ':memory:' ? file : path.resolve(file), query: q < 0 ? [] : parseQuery(rest.slice(q + 1)) };
}

/** Whether a scheme names a file, not a host (SQLite databases, NDJSON files): its connector says. */
function isPathScheme(scheme: string | undefined, lookup: SpecLookup): boolean {
  const s = scheme?.toLowerCase();
  return s !== undefined && lookup(s)?.pathSchemes?.includes(s) === true;
}

/**
 * Resolves an endpoint argument for a role. `overrides` are flags and --src-opt/--dst-opt pairs;
 * they win over the URL's query.
 */
export function resolveEndpoint(rawText: string, role: Role, lookup: SpecLookup, rawOverrides: [string, string][] = []): Endpoint {
  const text = interpolate(rawText, process.env, `the ${sideName(role)}`, true);
  const overrides = rawOverrides.map(([k, v]): [string, string] => [k, interpolate(v, process.env, k)]);
  let scheme: string;
  let url: ParsedUrl | undefined;
  let file: string | undefined;
  let query: [string, string][];
  let stdio = false;
  if (text === '-' || text.startsWith('-?')) {
    scheme = '-';
    stdio = true;
    query = text === '-' ? [] : parseQuery(text.slice(2));
  } else if (isPathScheme(/^([a-z][a-z0-9+.-]*)::memory:/i.exec(text)?.[1], lookup)) {
    scheme = text.slice(0, text.indexOf(':')).toLowerCase();
    file = ':memory:';
    const q = text.indexOf('?');
    query = q < 0 ? [] : parseQuery(text.slice(q + 1));
  } else if (isPathScheme(/^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1], lookup)) {
    scheme = text.slice(0, text.indexOf(':')).toLowerCase();
    ({ file, query } = splitPathForm(text, text.slice(0, scheme.length + 3)));
  } else {
    url = parseUrl(text);
    scheme = url.scheme;
    query = url.query;
  }
  const spec = lookup(scheme);
  if (!spec) throw configError(`unknown endpoint scheme "${scheme}://" for the ${sideName(role)}: use postgres://, mysql://, mariadb://, sqlite://, sqlserver://, http(s)://, file:// or -`);
  const kind = spec.schemes[scheme]!;

  // Register secrets before anything can echo them.
  // The password is what must never show; a bare user name is masked only in the displayed URL.
  if (url?.password !== undefined) {
    addSecret(url.userinfo);
    addSecret(url.password);
  }
  const all: [string, string][] = [...query, ...overrides];
  // Secret fields, and keys that look like secrets (a misspelled `pasword=` is still a password).
  for (const [k, v] of all) if (isSecretKey(spec, k)) addSecret(v);

  const warnings: string[] = [];
  const fields: Record<string, unknown> = {};
  const given = new Set<string>();
  const passthrough: [string, string][] = [];
  const fromQuery = new Set<string>();
  const names = spec.fields.map((f) => f.name);
  for (const [i, [key, value]] of all.entries()) {
    const f = spec.fields.find((x) => x.name === key);
    const isOverride = i >= query.length;
    if (!f) {
      const near = suggest(key, names);
      const isDriverKind = spec.name === 'database' || (spec.name === 'http' && role === 'publisher');
      // A key one typo away from a field is a mistake, never a driver option: in cron it would re-copy everything silently.
      if (isOverride || !isDriverKind || near)
        throw configError(`${key} is not a field of the ${kind} ${sideName(role)}${near ? ` (did you mean ${near}?)` : ''}`, 'run `bridge connectors` for the list of fields');
      passthrough.push([key, value]);
      continue;
    }
    if (!isOverride && fromQuery.has(key)) throw configError(`${key} is given twice in the ${sideName(role)} URL: keep one`);
    if (!isOverride) fromQuery.add(key);
    checkApplies(f, kind, role);
    fields[key] = coerceField(f, value, '');
    given.add(key);
  }
  for (const f of spec.fields) if (!(f.name in fields) && f.default !== undefined && appliesTo(f, kind, role)) fields[f.name] = f.default;
  registerSecrets(fields);

  const ep: Endpoint = { role, spec, kind, stdio, fields, given, passthrough, display: '', warnings };
  if (url) ep.url = url;
  if (file !== undefined) ep.file = file;
  // Shown as written: an interpolated secret stays a ${NAME} reference.
  ep.display = displayOf(rawText, ep);
  return ep;
}

const SECRET_LOOKING = /pass|secret|token|api_?key|auth/i;

/** A secret field, or a key that looks like one (a misspelled `pasword=` is still a password). */
const isSecretKey = (spec: ConnectorSpec, key: string): boolean => spec.fields.find((f) => f.name === key)?.secret === true || SECRET_LOOKING.test(key);

/** The secrets inside structured fields, in every form they may be echoed in (a header, its base64). */
function registerSecrets(fields: Record<string, unknown>): void {
  if (fields.tls && typeof fields.tls === 'object') addSecret((fields.tls as { cert_password?: string }).cert_password);
  const auth = fields.basic_auth;
  if (Array.isArray(auth) && auth.length === 2) {
    const [user, pass] = auth.map(String);
    addSecret(pass);
    addSecret(`${user}:${pass}`);
    addSecret(Buffer.from(`${user}:${pass}`).toString('base64'));
  }
  const headers = fields.custom_headers;
  if (headers && typeof headers === 'object') for (const v of Object.values(headers)) if (typeof v === 'string') addSecret(v);
}

const appliesTo = (f: FieldSpec, kind: string, role: Role): boolean => f.roles.includes(role) && (!f.kinds || f.kinds.includes(kind));

function checkApplies(f: FieldSpec, kind: string, role: Role): void {
  if (!f.roles.includes(role)) {
    const other = f.roles.includes('consumer') ? 'source (consumer)' : 'sink (publisher)';
    throw configError(`${f.name} is a ${other} field; it cannot be set on the ${sideName(role)}`);
  }
  if (f.kinds && !f.kinds.includes(kind)) throw configError(`${f.name} is not supported on ${kind}: it applies to ${f.kinds.join(', ')} only`);
  if (f.planned) throw configError(`${f.name} is not implemented yet in this version of bridge (${f.planned}); remove it`);
}

/** The endpoint text with userinfo and secret query values masked. */
function displayOf(text: string, ep: Endpoint): string {
  const q = text.indexOf('?');
  let base = q < 0 ? text : text.slice(0, q);
  if (ep.url?.userinfo !== undefined) base = base.replace(`${ep.url.userinfo}@`, `${MASKED}@`);
  if (q < 0) return base;
  const parts = text
    .slice(q + 1)
    .split('&')
    .map((p) => {
      const key = safeDecode(p.split('=')[0] ?? '');
      return isSecretKey(ep.spec, key) ? `${key}=${MASKED}` : p;
    });
  return `${base}?${parts.join('&')}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
