import { resolveEndpoint } from '../config/endpoint.js';
import { redact } from '../config/redact.js';
import { schemaFinisher, specForScheme } from '../connectors/registry.js';
import type { RouteArgs } from './route.js';
import type { CommonOpts } from './reporting.js';
import { finished, type RouteOutcome } from './run-many.js';
import type { NamedRoute } from './table-routes.js';

/** A migration's hooks around its routes: before the first, as each ends, after the last (giving the run's exit code for the step). */
export interface SchemaStep {
  routes: NamedRoute[];
  before(): Promise<void>;
  routeDone(route: NamedRoute, outcome: RouteOutcome): void;
  after(outcomes: RouteOutcome[]): Promise<number>;
}

/**
 * A copy of a table list into tables it creates (columns=auto&auto_create_table=true) is a
 * migration: each table's keys (where built faster after the load), defaults and indexes go on as
 * its data is in, and the foreign keys and checks after the last table (docs/copy-and-migrate.md).
 * The routes come back largest table first (with --parallel, the last to finish is then a small
 * one) and marked for keys after the load. Undefined when the run is not such a copy, or --data-only.
 */
export async function schemaStep(a: RouteArgs, routes: NamedRoute[], o: CommonOpts): Promise<SchemaStep | undefined> {
  if (a.command !== 'copy' || o.dataOnly === true) return undefined;
  const src = resolveEndpoint(a.src, 'consumer', specForScheme, a.srcOpts);
  const dst = resolveEndpoint(a.dst, 'publisher', specForScheme, a.dstOpts);
  if (src.spec.name !== 'database' || dst.spec.name !== 'database' || dst.fields.columns !== 'auto' || dst.fields.auto_create_table !== true) return undefined;
  const json = o.progress === 'json';
  const say = (line: string, extra: Record<string, unknown> = {}): void => {
    if (o.quiet === true) return;
    process.stderr.write(redact(json ? JSON.stringify({ ts: new Date().toISOString(), event: 'schema', message: line.replace(/^schema: /, ''), ...extra }) : `bridge copy: ${line}`) + '\n');
  };
  const finisher = await schemaFinisher(src, dst, routes.flatMap((r) => (r.table ? [r.table] : [])), { parallel: o.parallel ?? 1, dryRun: a.dryRun, say: (l) => say(l) });
  const open = await finisher.open();
  const sizes = open && (o.parallel ?? 1) > 1 ? await finisher.sizes() : undefined;
  const ordered = sizes ? [...routes].sort((x, y) => (sizes.get(y.table?.source ?? '') ?? 0) - (sizes.get(x.table?.source ?? '') ?? 0)) : routes;
  return {
    routes: ordered.map((r) => ({ ...r, args: { ...r.args, keysAfterLoad: open } })),
    before: () => (open ? finisher.pendingKeys() : Promise.resolve()),
    routeDone: (r, outcome) => {
      if (open && r.table && finished(outcome)) finisher.tableDone(r.table);
    },
    after: async (outcomes) => {
      if (!open) return 0;
      const unfinished = outcomes.filter((x) => !finished(x)).length;
      const r = await finisher.finish(unfinished === 0);
      if (unfinished) say(`schema: foreign keys and checks not added: ${unfinished} of ${outcomes.length} tables did not finish (the run that finishes them adds them)`);
      if (a.dryRun) return 0;
      const m = r.made;
      const counts = `${m.keys} keys, ${m.indexes} ${m.indexes === 1 ? 'index' : 'indexes'}, ${m.constraints} foreign keys and checks, ${m.columns} defaults and numberings`;
      say(`schema: ${counts} added in ${(r.ms / 1000).toFixed(1)} s${r.notKept ? `; ${r.notKept} not kept (listed above)` : ''}${r.failed ? `; ${r.failed} failed (listed above)` : ''}`, { ...m, not_kept: r.notKept, failed: r.failed, elapsed_ms: r.ms });
      // A statement the target refused is like a value it refused: the data is in, something of the source is not.
      return r.failed ? 4 : 0;
    },
  };
}
