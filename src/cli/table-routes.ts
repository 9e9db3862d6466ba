import { resolveEndpoint } from '../config/endpoint.js';
import { listSourceTables, namesSeveralTables, specForScheme, splitSourceTable } from '../connectors/registry.js';
import { configError } from '../core/errors.js';
import type { RouteArgs } from './route.js';

/** One route of a run of several: its name (a table, or a route file's entry) and its arguments. */
export interface NamedRoute {
  name: string;
  args: RouteArgs;
  /** A table of a table list: its name in the source and in the sink. */
  table?: { source: string; target: string };
}

/** `schema.*` on the sink puts every table into that schema; `*` or no table keeps the base names. */
export function sinkSchema(table: unknown): string | undefined {
  if (table === undefined || table === '*') return undefined;
  const m = typeof table === 'string' ? /^([^.,*]+)\.\*$/.exec(table) : null;
  if (!m) throw configError(`the sink's table must be left out (or be * or schema.*) when the source names several tables: each is copied into the sink table of the same name`);
  return m[1];
}

/**
 * A source whose table field names several tables becomes one route per table, each into the sink
 * table of the same name and, when the source has cursor_id, under `<cursor_id>.<table>` (its own
 * checkpoint). Returns undefined for a route that names one table.
 */
export async function tableRoutes(a: RouteArgs, exclude: string[], warn: (s: string) => void, parallel = 1): Promise<NamedRoute[] | undefined> {
  const src = resolveEndpoint(a.src, 'consumer', specForScheme, a.srcOpts);
  if (!namesSeveralTables(src)) {
    if (exclude.length) throw configError('--exclude needs a list of tables in the source (table=*, table=a,b or table=schema.*)');
    return undefined;
  }
  if (a.command === 'serve') throw configError('serve has no source table to list');
  const dst = resolveEndpoint(a.dst, 'publisher', specForScheme, a.dstOpts);
  const schema = dst.spec.name === 'database' ? sinkSchema(dst.fields.table) : undefined;
  // Every table's route would open the same file: a copy from scratch rewrites it, and lines of routes running at once would interleave.
  if (dst.spec.name === 'ndjson' && !dst.stdio) throw configError('a list of tables cannot go into one NDJSON file (each table\'s copy would rewrite it): give a database sink, or one table per file');
  if (dst.stdio && parallel > 1)
    throw configError(a.command === 'tail' ? 'tailing several tables into stdout would interleave their lines: tail into a database, or one table per process' : '--parallel with several tables into stdout would interleave their lines: leave --parallel out (tables then follow one another)');
  const tables = await listSourceTables(src, exclude, warn);
  const cursorId = src.given.has('cursor_id') ? String(src.fields.cursor_id) : undefined;
  const targets = new Map<string, string>();
  return tables.map((t) => {
    const base = t.slice(t.indexOf('.') + 1);
    const target = schema ? `${schema}.${base}` : base;
    const other = targets.get(target);
    if (other) throw configError(`source tables ${other} and ${t} would both be copied into the sink table ${target}: --exclude one of them, or copy each schema in its own run`);
    targets.set(target, t);
    const srcOpts: [string, string][] = [...a.srcOpts, ['table', t]];
    if (cursorId !== undefined) srcOpts.push(['cursor_id', `${cursorId}.${base}`]);
    // An ndjson or HTTP sink takes every table's rows as they are (no table field to set).
    const dstOpts: [string, string][] = dst.spec.name === 'database' ? [...a.dstOpts, ['table', target]] : a.dstOpts;
    return { name: t, args: { ...a, srcOpts, dstOpts, deadLetterShared: true }, table: { source: t, target } };
  });
}

/**
 * `--parallel N` on a copy of one table: N routes, each reading a key range (or a hash part) of it
 * over its own connection, into the same sink; with cursor_id each keeps `<cursor_id>.range<k>of<N>`.
 */
export async function splitRoutes(a: RouteArgs, n: number, warn: (s: string) => void): Promise<NamedRoute[]> {
  if (a.command !== 'copy') throw configError('--parallel on one table is for copy: a tail follows its table with one connection (use --partition k/N to split it across processes)');
  const src = resolveEndpoint(a.src, 'consumer', specForScheme, a.srcOpts);
  for (const f of ['partition', 'key_range', 'select_query', 'delete_after_read', 'publication'])
    if (src.given.has(f) && src.fields[f] !== false) throw configError(`--parallel splits the table itself; it cannot be combined with ${f}`);
  const parts = await splitSourceTable(src, n, warn);
  const cursorId = src.given.has('cursor_id') ? String(src.fields.cursor_id) : undefined;
  return parts.map((field, k) => {
    const srcOpts: [string, string][] = [...a.srcOpts, field];
    if (cursorId !== undefined) srcOpts.push(['cursor_id', `${cursorId}.range${k}of${parts.length}`]);
    return { name: field[0] === 'key_range' ? `${String(src.fields.table)}[${field[1]}]` : `${String(src.fields.table)}#${field[1]}`, args: { ...a, srcOpts, deadLetterShared: true } };
  });
}
