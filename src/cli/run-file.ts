import { resolveEndpoint } from '../config/endpoint.js';
import { specForScheme } from '../connectors/registry.js';
import { BridgeError, configError } from '../core/errors.js';
import type { FileRoute } from './route-file.js';
import { tableRoutes, type NamedRoute } from './table-routes.js';

/** A config error of one route, prefixed with where the file says what went wrong. */
function located(e: unknown, where: string): unknown {
  return e instanceof BridgeError && e.kind === 'config' ? configError(`${where}: ${e.message}`, e.hint) : e;
}

/** The field an endpoint error names first (`batch_sise is not a field …`), to point at its line. */
const fieldOf = (e: unknown): string | undefined => (e instanceof Error ? /^([a-z_]+) /.exec(e.message)?.[1] : undefined);

/** Each endpoint of a route resolved on its own, so an error points at the one that is wrong. */
function check(route: NamedRoute, file: FileRoute, files: Map<string, string>): void {
  const a = route.args;
  const parts: [Parameters<FileRoute['where']>[0], string | undefined, 'consumer' | 'publisher', [string, string][]][] = [
    ['source', a.src, 'consumer', a.srcOpts],
    ['sink', a.dst, 'publisher', a.dstOpts],
    ['reply', a.reply, 'publisher', []],
    ['dead_letter', a.deadLetter, 'publisher', []],
  ];
  for (const [part, text, role, opts] of parts) {
    if (text === undefined) continue;
    try {
      const ep = resolveEndpoint(text, role, specForScheme, opts);
      // Two routes writing one NDJSON file (or stdout) would rewrite or interleave each other's lines.
      const out = ep.spec.name === 'ndjson' && role === 'publisher' ? (ep.stdio ? 'stdout' : `file ${ep.file}`) : undefined;
      if (out && files.has(out) && files.get(out) !== route.name) throw configError(`${out} is also written by route ${files.get(out)}: give each route its own file`);
      if (out) files.set(out, route.name);
      if (part === 'source' && ep.fields.workers) throw configError('workers= forks listener processes, which a route file does not do: run it with bridge serve, or leave workers out');
    } catch (e) {
      throw located(e, file.where(part, fieldOf(e)));
    }
  }
}

/**
 * The routes of a route file, each table of a table list as its own route (`<route>.<table>`),
 * every endpoint resolved before any route starts: a mistake in the last route stops the run
 * before the first one writes.
 */
export async function routesOfFile(file: string, o: { dryRun: boolean; envFile?: string }, warn: (s: string) => void): Promise<{ routes: NamedRoute[]; metrics?: string }> {
  if (o.envFile !== undefined) {
    try {
      // Variables already set in the environment win over the file's (as node --env-file does).
      process.loadEnvFile(o.envFile);
    } catch (e) {
      throw configError(`--env-file ${o.envFile}: ${(e as Error).message}`);
    }
  }
  const out: NamedRoute[] = [];
  const files = new Map<string, string>();
  // The YAML parser loads only for route files (a fifth of bridge's start-up otherwise).
  const { readRouteFile } = await import('./route-file.js');
  const read = readRouteFile(file, o, warn);
  for (const fr of read.routes) {
    // Endpoints first, each on its own (an error names the endpoint and field that is wrong), then the table list.
    check({ name: fr.name, args: fr.args }, fr, files);
    let tables: NamedRoute[] | undefined;
    try {
      tables = await tableRoutes(fr.args, fr.exclude, warn, Infinity);
    } catch (e) {
      const about = e instanceof Error ? e.message : '';
      throw located(e, /^--exclude|^the sink's table/.test(about) ? fr.where(about.startsWith('--exclude') ? 'route' : 'sink') : fr.where('source', fieldOf(e)));
    }
    for (const r of tables ?? []) out.push({ name: `${fr.name}.${r.name}`, args: r.args });
    if (!tables) out.push({ name: fr.name, args: fr.args });
  }
  return read.metrics === undefined ? { routes: out } : { routes: out, metrics: read.metrics };
}
