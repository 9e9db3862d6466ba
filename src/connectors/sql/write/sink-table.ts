import type { Endpoint } from '../../../config/endpoint.js';
import { configError } from '../../../core/errors.js';
import type { PlanItem, SinkContext } from '../../../core/route.js';
import { typedTable } from './create-typed.js';
import type { Database } from '../database.js';
import type { TableInfo } from '../types.js';

/**
 * The sink's table as it is, created first with auto_create_table when missing: columns=auto
 * creates a typed copy of the source table, anything else the queue shape (contract §4.1). A dry
 * run creates nothing and describes what it would create.
 */
export async function sinkTable(db: Database, ep: Endpoint, ctx: SinkContext, described?: Promise<TableInfo>): Promise<{ info: TableInfo; created: string; createdPlan: PlanItem[]; dryCreate: boolean }> {
  const d = db.dialect;
  const table = ep.fields.table as string;
  const create = ep.fields.auto_create_table === true;
  let info = await (described ?? d.introspect({ query: (s, p) => db.query(s, p) }, table));
  let created = '';
  let createdPlan: PlanItem[] = [];
  if (create && !info.exists) {
    // A migration's table whose kind builds keys faster after the load (and no key= upsert needing one now).
    const later = ctx.keysAfterLoad === true && ep.fields.key === undefined && (await db.driver.schemaExtras?.())?.keysAfterLoad === true;
    const typed = ep.fields.columns === 'auto' ? typedTable(d, table, ctx.sourceTable, 'non-database', later) : undefined;
    const ddl = typed?.ddl ?? d.createQueueTable(table);
    createdPlan = typed?.plan ?? [];
    if (ctx.dryRun) {
      created = typed ? ` (would be created: ${ddl.join('; ')})` : ' (would be created, queue shape)';
      if (typed) info = typed.info;
    } else {
      const lock = d.ddlLock(table);
      await db.transaction(async (c) => {
        if (lock) await c.query(lock);
        for (const sql of ddl) await c.query(sql);
      });
      created = typed ? ` (created from the source's columns: ${ddl.join('; ')})` : ' (created if missing, queue shape)';
      info = await d.introspect({ query: (s, p) => db.query(s, p) }, table);
    }
  }
  const dryCreate = !info.exists && create && ctx.dryRun;
  if (!info.exists && !dryCreate) throw configError(`table ${table} does not exist in the ${ep.kind} sink: create it, or set auto_create_table=true`);
  return { info, created, createdPlan, dryCreate };
}
