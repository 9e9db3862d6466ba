import { resolveEndpoint } from '../config/endpoint.js';
import { redact } from '../config/redact.js';
import { finishSchema, specForScheme } from '../connectors/registry.js';
import type { RouteArgs } from './route.js';
import type { CommonOpts } from './reporting.js';
import type { RouteOutcome } from './run-many.js';
import type { NamedRoute } from './table-routes.js';

/**
 * A copy of a table list into tables it creates (columns=auto&auto_create_table=true) is a
 * migration: after every table's data, the source's indexes, foreign keys, checks and defaults go
 * on (docs/copy-and-migrate.md). Returns the step, run after the routes with their outcomes and
 * giving the run's exit code for it; undefined when the run is not such a copy or --data-only.
 */
export function schemaStep(a: RouteArgs, routes: NamedRoute[], o: CommonOpts): ((outcomes: RouteOutcome[]) => Promise<number>) | undefined {
  if (a.command !== 'copy' || o.dataOnly === true) return undefined;
  const src = resolveEndpoint(a.src, 'consumer', specForScheme, a.srcOpts);
  const dst = resolveEndpoint(a.dst, 'publisher', specForScheme, a.dstOpts);
  if (src.spec.name !== 'database' || dst.spec.name !== 'database' || dst.fields.columns !== 'auto' || dst.fields.auto_create_table !== true) return undefined;
  const tables = routes.flatMap((r) => (r.table ? [r.table] : []));
  const json = o.progress === 'json';
  const say = (line: string, extra: Record<string, unknown> = {}): void => {
    if (o.quiet === true) return;
    process.stderr.write(redact(json ? JSON.stringify({ ts: new Date().toISOString(), event: 'schema', message: line.replace(/^schema: /, ''), ...extra }) : `bridge copy: ${line}`) + '\n');
  };
  return async (outcomes) => {
    const unfinished = outcomes.filter((x) => x.code !== 0 || !x.summary?.ok || x.summary.stopped === true).length;
    if (unfinished) {
      say(`schema: indexes and constraints not added: ${unfinished} of ${outcomes.length} tables did not finish (the run that finishes them adds them)`);
      return 0;
    }
    const r = await finishSchema(src, dst, tables, { parallel: o.parallel ?? 1, dryRun: a.dryRun, say: (l) => say(l) });
    if (a.dryRun) return 0;
    const m = r.made;
    const counts = `${m.indexes} ${m.indexes === 1 ? 'index' : 'indexes'}, ${m.constraints} foreign keys and checks, ${m.columns} defaults and numberings`;
    say(`schema: ${counts} added in ${(r.ms / 1000).toFixed(1)} s${r.notKept ? `; ${r.notKept} not kept (listed above)` : ''}${r.failed ? `; ${r.failed} failed (listed above)` : ''}`, { ...m, not_kept: r.notKept, failed: r.failed, elapsed_ms: r.ms });
    // A statement the target refused is like a value it refused: the data is in, something of the source is not.
    return r.failed ? 4 : 0;
  };
}
