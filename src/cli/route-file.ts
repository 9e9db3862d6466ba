import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import { interpolate } from '../config/env.js';
import { suggest } from '../config/suggest.js';
import { configError } from '../core/errors.js';
import type { RunMode } from '../core/route.js';
import { DEFAULT_BATCH, type RouteArgs } from './route.js';

/** A route of a file, before its table list (if any) is expanded: where it was written, for errors. */
export interface FileRoute {
  name: string;
  args: RouteArgs;
  exclude: string[];
  /** `routes.yaml:12: routes.orders.source` for an error about one of its endpoints. */
  where(part: 'source' | 'sink' | 'reply' | 'dead_letter' | 'route', field?: string): string;
}

const ROUTE_KEYS = ['name', 'mode', 'source', 'sink', 'reply', 'dead_letter', 'batch_size', 'limit', 'read_ahead', 'max_retries', 'exit_when_drained', 'exclude'];
const MODES: RunMode[] = ['copy', 'tail', 'serve'];
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

class FileReader {
  readonly lines = new LineCounter();
  constructor(readonly file: string) {}

  line(node: unknown): number {
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    return range ? this.lines.linePos(range[0]).line : 1;
  }

  fail(node: unknown, path: string, message: string): never {
    throw configError(`${this.file}:${this.line(node)}: ${path}: ${message}`);
  }

  /** A scalar as text (numbers and booleans as written); `${VAR}` is left for the caller. */
  text(node: unknown, path: string): string {
    if (!isScalar(node) || node.value === null || typeof node.value === 'object') this.fail(node, path, 'must be a single value (text, number or true/false)');
    return String((node as { source?: string }).source ?? node.value);
  }

  pairs(node: unknown, path: string): Pair<Node, Node>[] {
    if (!isMap(node)) this.fail(node, path, 'must be a mapping of key: value');
    return (node as { items: Pair<Node, Node>[] }).items;
  }
}

/**
 * Whether a URL's userinfo has a password written out: `${VAR}` and `${VAR:-default}` are
 * substitutions, and the `:` inside one is not the user:password separator.
 */
export function holdsPassword(url: string): boolean {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url.replace(/\$\{[^}]*\}/g, ''));
  if (!m) return false;
  const colon = m[1]!.indexOf(':');
  return colon >= 0 && colon < m[1]!.length - 1;
}

/**
 * Reads a route file (docs/operations.md "Route files"): `connections` names endpoints once, `routes` (a
 * mapping of name → route, or a list with `name:`) holds what the flags and URLs of one command
 * say. Endpoint texts keep `${VAR}` references for the endpoint layer to fill in (so they show as
 * written and their values are masked); other values are filled in here.
 */
export function readRouteFile(file: string, o: { dryRun: boolean }, warn: (s: string) => void): { routes: FileRoute[]; metrics?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw configError(`cannot read the route file ${file}: ${(e as Error).message}`);
  }
  const r = new FileReader(file);
  const doc = parseDocument(text, { lineCounter: r.lines, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw configError(`${file}:${e.linePos?.[0]?.line ?? 1}: not valid YAML: ${e.message.split('\n')[0]}`);
  }
  const connections = new Map<string, string>();
  let routesNode: unknown;
  let metrics: string | undefined;
  for (const p of r.pairs(doc.contents, 'the file')) {
    const key = r.text(p.key, 'a top-level key');
    if (key === 'connections') {
      for (const c of r.pairs(p.value, 'connections')) {
        const name = r.text(c.key, 'connections');
        const url = r.text(c.value, `connections.${name}`);
        if (holdsPassword(url)) warn(`${file}:${r.line(c.value)}: connections.${name} holds a password in the file: write \${SOME_PASSWORD} and keep it in the environment (or --env-file)`);
        connections.set(name, url);
      }
    } else if (key === 'routes') routesNode = p.value;
    else if (key === 'metrics') metrics = interpolate(r.text(p.value, 'metrics'), process.env, `${file} metrics`);
    else r.fail(p.key, key, `is not a key of a route file (keys: connections, routes, metrics)`);
  }
  if (!routesNode) throw configError(`${file}: has no routes: add a routes: mapping (see docs/operations.md "Route files")`);
  const entries: [string | undefined, unknown][] = isSeq(routesNode)
    ? (routesNode.items as unknown[]).map((n) => [undefined, n])
    : r.pairs(routesNode, 'routes').map((p) => [r.text(p.key, 'routes'), p.value]);
  const names = new Set<string>();
  const routes = entries.map(([mapName, node], i) => {
    const route = routeOf(r, node, mapName, i, connections, o);
    if (names.has(route.name)) r.fail(node, `routes.${route.name}`, 'a route of the same name comes earlier: names must differ');
    names.add(route.name);
    return route;
  });
  return metrics === undefined ? { routes } : { routes, metrics };
}

function routeOf(r: FileReader, node: unknown, mapName: string | undefined, i: number, connections: Map<string, string>, o: { dryRun: boolean }): FileRoute {
  const values = new Map<string, Pair<Node, Node>>();
  for (const p of r.pairs(node, `routes[${i}]`)) {
    const key = r.text(p.key, `routes[${i}]`);
    if (!ROUTE_KEYS.includes(key)) {
      const near = suggest(key, ROUTE_KEYS);
      r.fail(p.key, `routes.${mapName ?? i}.${key}`, `is not a route key${near ? ` (did you mean ${near}?)` : ''}; keys: ${ROUTE_KEYS.join(', ')} (connector fields go in the endpoint's URL or mapping)`);
    }
    values.set(key, p);
  }
  const name = mapName ?? (values.has('name') ? r.text(values.get('name')!.value, `routes[${i}].name`) : `route${i + 1}`);
  const path = `routes.${name}`;
  const value = (k: string): string | undefined => {
    const p = values.get(k);
    return p ? interpolate(r.text(p.value, `${path}.${k}`), process.env, `${r.file} ${path}.${k}`) : undefined;
  };
  const int = (k: string): number | undefined => {
    const v = value(k);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v) || Number(v) < 1) r.fail(values.get(k)!.value, `${path}.${k}`, `must be a positive integer, not "${v}"`);
    return Number(v);
  };
  const mode = (value('mode') ?? 'copy') as RunMode;
  if (!MODES.includes(mode)) r.fail(values.get('mode')!.value, `${path}.mode`, `must be copy, tail or serve, not "${mode}"`);
  const endpoint = (k: 'source' | 'sink' | 'reply' | 'dead_letter'): { text: string; opts: [string, string][] } | undefined => {
    const p = values.get(k);
    if (!p) return undefined;
    return endpointOf(r, p.value, `${path}.${k}`, connections, k === 'source' && mode === 'serve');
  };
  const src = endpoint('source');
  const dst = endpoint('sink');
  if (!src) r.fail(node, path, 'has no source');
  if (!dst) r.fail(node, path, 'has no sink');
  const reply = endpoint('reply');
  const dead = endpoint('dead_letter');
  for (const [k, e] of [['reply', reply], ['dead_letter', dead]] as const)
    if (e && e.opts.length) r.fail(values.get(k)!.value, `${path}.${k}`, 'write this endpoint as one URL (or a connection name with ?fields)');
  // exclude: a, b_* or a YAML list.
  const excludeNode = values.get('exclude')?.value;
  const exclude = isSeq(excludeNode) ? (excludeNode.items as unknown[]).map((n, k) => r.text(n, `${path}.exclude[${k}]`)).join(',') : value('exclude');
  const flag = value('exit_when_drained');
  if (flag !== undefined && flag !== 'true' && flag !== 'false') r.fail(values.get('exit_when_drained')!.value, `${path}.exit_when_drained`, 'must be true or false');
  const batchSize = int('batch_size');
  const args: RouteArgs = {
    command: mode,
    src: src.text,
    dst: dst.text,
    srcOpts: src.opts,
    dstOpts: dst.opts,
    batchSize: batchSize ?? DEFAULT_BATCH,
    batchSizeGiven: batchSize !== undefined,
    limit: int('limit'),
    dryRun: o.dryRun,
    maxRetries: mode === 'serve' ? Infinity : (int('max_retries') ?? 10),
    readAhead: int('read_ahead') ?? (mode === 'serve' ? 1 : 2),
    readAheadGiven: int('read_ahead') !== undefined,
    exitWhenDrained: flag === 'true',
    ...(reply ? { reply: reply.text } : {}),
    ...(dead ? { deadLetter: dead.text } : {}),
  };
  if (flag === 'true' && mode !== 'tail') r.fail(values.get('exit_when_drained')!.value, `${path}.exit_when_drained`, 'applies to tail routes only');
  const lineOf = (part: string, field?: string): number => {
    const p = values.get(part);
    if (!p) return r.line(node);
    if (field && isMap(p.value)) {
      const f = (p.value.items as Pair<Node, Node>[]).find((x) => isScalar(x.key) && x.key.value === field);
      if (f) return r.line(f.key);
    }
    return r.line(p.value);
  };
  return {
    name,
    args,
    exclude: exclude ? exclude.split(',').map((x) => x.trim()).filter(Boolean) : [],
    where: (part, field) => `${r.file}:${lineOf(part, field)}: ${path}${part === 'route' ? '' : `.${part}`}`,
  };
}

/**
 * An endpoint written as a URL, as `<connection>?fields`, or as a mapping with `connection:` or
 * `url:` and connector fields. A mapping's fields become the same overrides as --src-opt/--dst-opt.
 */
function endpointOf(r: FileReader, node: unknown, path: string, connections: Map<string, string>, listen: boolean): { text: string; opts: [string, string][] } {
  if (isMap(node)) {
    let base: string | undefined;
    const opts: [string, string][] = [];
    for (const p of r.pairs(node, path)) {
      const key = r.text(p.key, path);
      const v = r.text(p.value, `${path}.${key}`);
      if (key === 'connection' || key === 'url') {
        if (base !== undefined) r.fail(p.key, `${path}.${key}`, 'give one of connection: or url:');
        if (key === 'connection' && !connections.has(v)) r.fail(p.value, `${path}.connection`, unknownConnection(v, connections));
        base = key === 'connection' ? connections.get(v)! : v;
      } else opts.push([key, v]);
    }
    if (base === undefined) r.fail(node, path, 'needs connection: <name> or url: <endpoint URL>');
    return { text: listen ? listenUrl(base) : base, opts };
  }
  const text = r.text(node, path);
  const q = text.indexOf('?');
  const head = q < 0 ? text : text.slice(0, q);
  if (connections.has(head)) {
    const base = connections.get(head)!;
    return { text: q < 0 ? base : `${base}${base.includes('?') ? '&' : '?'}${text.slice(q + 1)}`, opts: [] };
  }
  if (!SCHEME.test(text) && text !== '-' && !text.startsWith('-?') && !listen) r.fail(node, path, `"${head}" is neither an endpoint URL nor a connection of this file${connections.size ? ` (connections: ${[...connections.keys()].join(', ')})` : ''}`);
  return { text: listen ? listenUrl(text) : text, opts: [] };
}

const unknownConnection = (name: string, connections: Map<string, string>): string => {
  const near = suggest(name, [...connections.keys()]);
  return `"${name}" is not a connection of this file${near ? ` (did you mean ${near}?)` : ''}`;
};

/** `0.0.0.0:8080` → `http://0.0.0.0:8080`, as `bridge serve` takes its listen address. */
export const listenUrl = (text: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
