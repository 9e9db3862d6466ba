import { resolveEndpoint, type Endpoint } from '../config/endpoint.js';
import { createSink, specForScheme } from '../connectors/registry.js';
import { configError } from '../core/errors.js';
import type { Sink, Source } from '../core/route.js';
import { TableRouterSink } from '../pipeline/table-router.js';
import type { RouteArgs } from './route.js';
import { sinkSchema } from './table-routes.js';

/**
 * The change-capture endpoint into a database: each captured table's changes go into the sink
 * table of the same name (in `schema` when the sink says `table=schema.*`), through one sink per
 * table sharing one pool. With columns=auto and no key=, each table's own primary key is the key
 * its mirror is kept by. Undefined for any other route (an NDJSON or HTTP sink takes every table's
 * changes as one stream, with bridge.table in the metadata).
 */
export function changeRouter(a: RouteArgs, src: Endpoint, dst: Endpoint, source: Source): Sink | undefined {
  if (src.spec.name !== 'change-capture' || dst.spec.name !== 'database') return undefined;
  const given = typeof dst.fields.table === 'string' && !dst.fields.table.includes('*') ? dst.fields.table : undefined;
  const schema = given === undefined ? sinkSchema(dst.fields.table) : undefined;
  const tables = (): readonly string[] => source.capturedTables?.() ?? [];
  const targets = new Map<string, string>();
  return new TableRouterSink(tables, async (t) => {
    if (given !== undefined && tables().length > 1) throw configError(`the sink's table must be left out (or be * or schema.*) when several tables are captured (${tables().join(', ')}): each goes into the sink table of the same name`);
    const base = t.slice(t.indexOf('.') + 1);
    const target = given ?? (schema ? `${schema}.${base}` : base);
    const other = targets.get(target);
    if (other !== undefined) throw configError(`captured tables ${other} and ${t} would both go into the sink table ${target}: capture one schema per run, or name the tables`);
    targets.set(target, t);
    const table = await source.describeTable?.(false, t);
    const opts: [string, string][] = [...a.dstOpts, ['table', target]];
    if (dst.fields.columns === 'auto' && !dst.given.has('key') && table?.primaryKey.length) opts.push(['key', table.primaryKey.join(',')]);
    return { sink: await createSink(resolveEndpoint(a.dst, 'publisher', specForScheme, opts)), table };
  });
}
