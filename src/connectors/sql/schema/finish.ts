import type { Endpoint } from '../../../config/endpoint.js';
import { loadKind } from '../kind.js';
import { openDatabase } from '../open-database.js';
import type { Database } from '../database.js';
import { foreignNames, type ExtrasPlan, type SchemaExtras } from './extras.js';

/** One table of a migration: its name in the source and in the sink. */
export interface MigratedTable {
  source: string;
  target: string;
}

export interface FinishOptions {
  parallel: number;
  dryRun: boolean;
  /** One line for the user (the plan, what was not kept, what failed). */
  say(line: string): void;
}

/** What the last step did: counts of what it made, and how many statements failed (exit 4). */
export interface FinishResult {
  made: { columns: number; indexes: number; constraints: number };
  failed: number;
  notKept: number;
  ms: number;
}

/**
 * The migration's last step, after every table's data: the source's secondary indexes, then its
 * foreign keys and checks (added unvalidated, then validated: PostgreSQL's NOT VALID + VALIDATE),
 * its defaults and numbering columns, on each target table that holds nothing of someone else's
 * (a table with indexes or constraints of other names is left as it is). Idempotent: what an
 * earlier run made is found by name and not made again. Indexes and validations run `parallel` at
 * a time, each on its own connection.
 */
export async function finishSchema(src: Endpoint, dst: Endpoint, tables: MigratedTable[], o: FinishOptions): Promise<FinishResult> {
  const started = Date.now();
  const result: FinishResult = { made: { columns: 0, indexes: 0, constraints: 0 }, failed: 0, notKept: 0, ms: 0 };
  const [sk, dk] = await Promise.all([loadKind(src.kind), loadKind(dst.kind)]);
  const [from, to] = await Promise.all([sk.schemaExtras?.(), dk.schemaExtras?.()]);
  if (!from || !to) {
    o.say(`schema: indexes and constraints are not recreated ${!from ? `from a ${src.kind} source` : `in a ${dst.kind} sink`} (data, keys and NOT NULL only)`);
    return result;
  }
  const source = await openDatabase(src, sk, o.say);
  let sink: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    sink = await openDatabase(dst, dk, o.say);
    const plans = await planAll(source.db, sink.db, from, to, tables, o, result);
    if (!o.dryRun) await apply(sink.db, plans, o, result);
  } finally {
    await sink?.release();
    await source.release();
  }
  result.ms = Date.now() - started;
  return result;
}

type Planned = { target: string; plan: ExtrasPlan };

async function planAll(src: Database, dst: Database, from: SchemaExtras, to: SchemaExtras, tables: MigratedTable[], o: FinishOptions, r: FinishResult): Promise<Planned[]> {
  const byBase = new Map(tables.map((t) => [t.source.slice(t.source.lastIndexOf('.') + 1), t.target]));
  const out: Planned[] = [];
  for (const t of tables) {
    const want = await src.withConnection((c) => from.read(c, t.source));
    const [have, plan] = await dst.withConnection(async (c) => {
      const h = await to.read(c, t.target);
      return [h, await to.plan(c, t.target, want, h, (name) => byBase.get(name))] as const;
    });
    const other = foreignNames(have, plan);
    if (other.length) {
      o.say(`schema: ${t.target}: left as it is (it has ${other.join(', ')} of its own)`);
      continue;
    }
    for (const n of plan.notKept) o.say(`schema: ${t.target}: not kept: ${n}`);
    r.notKept += plan.notKept.length;
    if (o.dryRun) for (const s of [...plan.columns, ...plan.indexes, ...plan.constraints.flatMap((c) => [...c.add, ...(c.validate ? [c.validate] : [])])]) o.say(`schema: ${t.target}: would run: ${s}`);
    out.push({ target: t.target, plan });
  }
  return out;
}

async function apply(db: Database, plans: Planned[], o: FinishOptions, r: FinishResult): Promise<void> {
  const fail = (target: string, what: string, e: unknown): void => {
    r.failed++;
    o.say(`schema: ${target}: ${what} failed: ${e instanceof Error ? e.message : String(e)}`);
  };
  // Catalog changes first (cheap, one table each), then the indexes, which the foreign keys' checks use.
  await atOnce(plans, o.parallel, async (p) => {
    for (const s of p.plan.columns) await db.query(s).then(() => r.made.columns++, (e) => fail(p.target, s.slice(0, 120), e));
  });
  const indexes = plans.flatMap((p) => p.plan.indexes.map((s) => ({ target: p.target, s })));
  await atOnce(indexes, o.parallel, (i) => db.query(i.s).then(() => void r.made.indexes++, (e) => fail(i.target, `index (${i.s.slice(0, 120)})`, e)));
  // Added one at a time (each takes locks on two tables), then checked table by table at once.
  const added: { target: string; c: ExtrasPlan['constraints'][number] }[] = [];
  for (const p of plans)
    for (const c of p.plan.constraints) {
      const ok = await db.withConnection(async (conn) => {
        try {
          for (const s of c.add) await conn.query(s);
          return true;
        } catch (e) {
          fail(p.target, `constraint ${c.name}`, e);
          return false;
        } finally {
          for (const s of c.after ?? []) await conn.query(s).catch(() => undefined);
        }
      });
      if (ok) added.push({ target: p.target, c });
    }
  await atOnce(added, o.parallel, async ({ target, c }) => {
    try {
      if (c.validate) await db.query(c.validate);
      if (c.orphans && (await db.query(c.orphans)).rows.length) {
        if (c.drop) await db.query(c.drop);
        throw new Error('rows of the copy break it (taken away again)');
      }
      r.made.constraints++;
    } catch (e) {
      fail(target, `constraint ${c.name}${c.validate ? ' (left unvalidated)' : ''}`, e);
    }
  });
}

/** Runs `fn` on every item, `n` at a time. */
async function atOnce<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
}
