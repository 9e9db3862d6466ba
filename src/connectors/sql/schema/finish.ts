import type { Endpoint } from '../../../config/endpoint.js';
import { loadKind } from '../kind.js';
import { openDatabase } from '../open-database.js';
import { typedColumns } from '../typed-target.js';
import type { Database } from '../database.js';
import { foreignNames, type ExtrasPlan, type SchemaExtras, type TableExtras } from './extras.js';
import { atOnce, Jobs } from './jobs.js';

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
  made: { columns: number; keys: number; indexes: number; constraints: number };
  failed: number;
  notKept: number;
  ms: number;
}

type Planned = { target: string; plan: ExtrasPlan; exists: boolean };
type Opened = { db: Database; release(): Promise<void> };

/**
 * The migration's last step, the way pgcopydb and pgloader finish: as each table's data is in
 * (`tableDone`), the keys it was created without (PostgreSQL), its defaults and numbering
 * columns, then the source's secondary indexes, `parallel` at a time beside the tables still
 * loading; after every table (`finish`), the foreign keys and checks, each added unvalidated and
 * validated after (PostgreSQL's NOT VALID + VALIDATE). Only on target tables that hold nothing of
 * someone else's (a table with indexes or constraints of other names is left as it is), and
 * idempotent: what an earlier run made is found by name and not made again.
 */
export class SchemaFinisher {
  readonly result: FinishResult = { made: { columns: 0, keys: 0, indexes: 0, constraints: 0 }, failed: 0, notKept: 0, ms: 0 };
  private readonly started = Date.now();
  private from: SchemaExtras | undefined;
  private to: SchemaExtras | undefined;
  private source: Opened | undefined;
  private sink: Opened | undefined;
  private readonly planned: Planned[] = [];
  private readonly jobs: Jobs;
  private readonly byBase: Map<string, string>;

  constructor(
    private readonly src: Endpoint,
    private readonly dst: Endpoint,
    private readonly tables: MigratedTable[],
    private readonly o: FinishOptions,
  ) {
    this.jobs = new Jobs(o.parallel);
    this.byBase = new Map(tables.map((t) => [t.source.slice(t.source.lastIndexOf('.') + 1), t.target]));
  }

  /** Connects to both sides; false (and a line saying so) when a kind has no last step. */
  async open(): Promise<boolean> {
    const [sk, dk] = await Promise.all([loadKind(this.src.kind), loadKind(this.dst.kind)]);
    [this.from, this.to] = await Promise.all([sk.schemaExtras?.(), dk.schemaExtras?.()]);
    if (!this.from || !this.to) {
      this.o.say(`schema: indexes and constraints are not recreated ${!this.from ? `from a ${this.src.kind} source` : `in a ${this.dst.kind} sink`} (data, keys and NOT NULL only)`);
      return false;
    }
    this.source = await openDatabase(this.src, sk, this.o.say);
    this.sink = await openDatabase(this.dst, dk, this.o.say).catch(async (e: unknown) => {
      await this.source?.release();
      throw e;
    });
    return true;
  }

  /** Each source table's rows as the kind estimates them (for largest first). */
  async sizes(): Promise<Map<string, number>> {
    const db = this.source!.db;
    const out = new Map<string, number>();
    for (const t of this.tables) out.set(t.source, await db.withConnection((c) => db.dialect.estimateRows(c, t.source)));
    return out;
  }

  /** The keys an earlier run of this migration created its tables without and did not get to: added before any row is copied again, so a re-run meets its keys as it always did. */
  async pendingKeys(): Promise<void> {
    for (const t of this.tables) {
      const p = await this.plan(t, false);
      if (p?.exists && p.plan.keys.length && !this.o.dryRun) await this.run(p.target, p.plan.keys, 'keys');
    }
  }

  /** A table's data is in: its defaults, keys and indexes start now, beside the tables still loading. */
  tableDone(t: MigratedTable): void {
    this.jobs.add(async () => {
      try {
        const p = await this.plan(t, true);
        if (!p || this.o.dryRun) return;
        this.planned.push(p);
        // Keys first: an identity needs its column NOT NULL, which a primary key makes it.
        await this.run(p.target, p.plan.keys, 'keys');
        await this.run(p.target, p.plan.columns, 'columns');
        // The indexes of one table one after another here, the tables' at once: `parallel` in all.
        await this.run(p.target, p.plan.indexes, 'indexes');
      } catch (e) {
        this.fail(t.target, 'reading its indexes and constraints', e);
      }
    });
  }

  /** Every table's data is in (`complete`), or some did not finish: the constraints need all of them. */
  async finish(complete: boolean): Promise<FinishResult> {
    try {
      await this.jobs.done();
      if (complete && !this.o.dryRun) await this.constraints();
    } finally {
      await this.sink?.release();
      await this.source?.release();
    }
    this.result.ms = Date.now() - this.started;
    return this.result;
  }

  private async plan(t: MigratedTable, say: boolean): Promise<Planned | undefined> {
    const [src, dst, from, to] = [this.source!.db, this.sink!.db, this.from!, this.to!];
    const [want, srcInfo] = await src.withConnection(async (c) => {
      const info = await src.dialect.introspect(c, t.source);
      return [withKeys(await from.read(c, t.source), info), info] as const;
    });
    const [have, plan, exists] = await dst.withConnection(async (c) => {
      const info = await dst.dialect.introspect(c, t.target);
      const h = withKeys(await to.read(c, t.target), info);
      // A dry run's table is not there: its defaults and numbering are planned against the columns the run would create it with.
      const created = info.exists || !this.o.dryRun ? undefined : typedColumns(dst, t.target, srcInfo, src, this.src.kind);
      return [h, await to.plan(c, t.target, want, h, (name) => this.byBase.get(name), created), info.exists] as const;
    });
    const other = foreignNames(have, plan);
    if (other.length) {
      if (say) this.o.say(`schema: ${t.target}: left as it is (it has ${other.join(', ')} of its own)`);
      return undefined;
    }
    if (!say) return { target: t.target, plan, exists };
    for (const n of plan.notKept) this.o.say(`schema: ${t.target}: not kept: ${n}`);
    this.result.notKept += plan.notKept.length;
    if (this.o.dryRun) for (const s of [...plan.keys, ...plan.columns, ...plan.indexes, ...plan.constraints.flatMap((c) => [...c.add, ...(c.validate ? [c.validate] : [])])]) this.o.say(`schema: ${t.target}: would run: ${s}`);
    return { target: t.target, plan, exists };
  }

  private async run(target: string, statements: string[], what: 'columns' | 'keys' | 'indexes'): Promise<void> {
    for (const s of statements)
      await this.sink!.db.query(s).then(
        () => void this.result.made[what]++,
        (e: unknown) => this.fail(target, s.slice(0, 160), e),
      );
  }

  private fail(target: string, what: string, e: unknown): void {
    this.result.failed++;
    this.o.say(`schema: ${target}: ${what} failed: ${e instanceof Error ? e.message : String(e)}`);
  }

  /** Added one at a time (each locks two tables), then validated table by table at once. */
  private async constraints(): Promise<void> {
    const db = this.sink!.db;
    const added: { target: string; c: ExtrasPlan['constraints'][number] }[] = [];
    for (const p of this.planned)
      for (const c of p.plan.constraints) {
        const ok = await db.withConnection(async (conn) => {
          try {
            for (const s of c.add) await conn.query(s);
            return true;
          } catch (e) {
            this.fail(p.target, `constraint ${c.name}`, e);
            return false;
          } finally {
            for (const s of c.after ?? []) await conn.query(s).catch(() => undefined);
          }
        });
        if (ok) added.push({ target: p.target, c });
      }
    await atOnce(added, this.o.parallel, async ({ target, c }) => {
      try {
        if (c.validate) await db.query(c.validate);
        if (c.orphans && (await db.query(c.orphans)).rows.length) {
          if (c.drop) await db.query(c.drop);
          throw new Error('rows of the copy break it (taken away again)');
        }
        this.result.made.constraints++;
      } catch (e) {
        this.fail(target, `constraint ${c.name}${c.validate ? ' (left unvalidated)' : ''}`, e);
      }
    });
  }
}

const withKeys = (x: TableExtras, info: { exists: boolean; primaryKey: string[]; uniqueSets: string[][] }): TableExtras => ({ ...x, keys: { primaryKey: info.primaryKey, unique: info.uniqueSets } });
