import { BridgeError, configError } from '../../../core/errors.js';
import type { Endpoint } from '../../../config/endpoint.js';
import type { CommitPosition, SinkPositions } from '../../../core/route.js';
import type { Database } from '../database.js';
import type { Dialect } from '../dialect.js';
import type { SqlConnection } from '../types.js';

/** Default name of the table a SQL sink keeps route positions in (sink field position_table). */
export const POSITION_TABLE = 'bridge_positions';

/**
 * A position waiting to be committed with the batch being written (issue 28): the statement that
 * moves it runs inside the transaction that writes the batch's rows, so the rows and the position
 * commit together or not at all. `expectSeq` makes it a compare-and-set: a run that is not the only
 * writer of the route, or a batch committed before its answer was lost, is caught, not doubled.
 */
export interface PendingPosition {
  readonly table: PositionTable;
  readonly position: CommitPosition;
  /** The row's key in the position table: the route, and the sink table it stands for (PositionTable.key). */
  readonly key: string;
  /** The route's seq the sink last saw (0: no row yet). */
  readonly expectSeq: number;
  /** Set once a transaction carried it: a second one under the same batch is a bug (see commitIn). */
  committed: boolean;
}

/** The moved position's compare-and-set found another seq: the batch committed already, or another run writes the route. */
export class PositionMoved extends BridgeError {
  constructor(message: string) {
    super('fatal', message);
  }
}

/**
 * The sink's position table: `(route, last_position, seq, updated_at)`, one row per route, keyed by
 * what the source names it (`<cursor_id>@<source>`, `cdc:<slot>`…). Created on first use.
 */
export class PositionTable {
  /** The seq last committed per row key (route and table), as this run knows it. */
  private readonly seqs = new Map<string, number>();
  /** Which sink table (as the kind identifies a table: PostgreSQL's oid…) the positions stand for; undefined while it does not exist. */
  private identity: string | undefined;

  constructor(
    private readonly dialect: Dialect,
    readonly name: string,
    /** The sink's own view of its database (Database.forSink): only its transactions carry this table's positions. */
    readonly owner: Database,
    private readonly sinkTable: string,
  ) {}

  /**
   * A route's row is keyed by the route and the sink table's identity: a table dropped and made again
   * (to start over, or by a test) is another table, and a position kept for the old one does not apply.
   */
  key(route: string): string {
    return this.identity === undefined ? route : `${route}#${this.identity}`;
  }

  /** Reads the sink table's identity (again once the sink has created it). */
  async identify(): Promise<void> {
    this.identity = await this.dialect.tableIdentity?.({ query: (s, p) => this.owner.query(s, p) }, this.sinkTable).catch(() => undefined);
  }

  /** Creates the table if missing; a sink where the user cannot create tables is refused with the fix. */
  async open(ddl: (statements: string[]) => Promise<void>): Promise<void> {
    try {
      await ddl(this.dialect.createPositionTable(this.name));
    } catch (e) {
      if (e instanceof BridgeError && e.kind === 'transient') throw e;
      throw configError(
        `cannot create the position table ${this.name} in the sink (${(e as Error).message.split('\n')[0]}): exactly-once delivery keeps each route's position there. ` +
          `Create it (or grant CREATE), name another with position_table=<schema.table>, or set position_table=none for at-least-once delivery`,
      );
    }
  }

  /** The stored position of a route, if any (and its seq, for the next compare-and-set). */
  async load(route: string): Promise<string | undefined> {
    const d = this.dialect;
    const r = await this.owner.query(`SELECT ${d.quote('last_position')}, ${d.quote('seq')} FROM ${d.table(this.name)} WHERE ${d.quote('route')} = ${d.param(1)}`, [this.key(route)]);
    const row = r.rows[0];
    if (!row) {
      this.seqs.set(this.key(route), 0);
      return undefined;
    }
    this.seqs.set(this.key(route), Number(row[1]));
    return String(row[0]);
  }

  /** Runs `write` with `position` pending: the transaction that writes the batch commits it too (Database.commitPosition). */
  async with<T>(position: CommitPosition, write: () => Promise<T>): Promise<{ out: T; committed: boolean }> {
    const key = this.key(position.route);
    // A row under a key this run has not read (the table made since the source resumed): a leftover of a table dropped since, written over.
    if (!this.seqs.has(key)) await this.load(position.route);
    const p: PendingPosition = { table: this, position, key, expectSeq: this.seqs.get(key)!, committed: false };
    // One batch at a time: a source that keeps a position has each batch acknowledged before the next is written.
    this.owner.pending = p;
    try {
      const out = await write();
      if (p.committed) this.seqs.set(key, p.expectSeq + 1);
      return { out, committed: p.committed };
    } catch (e) {
      if (!(e instanceof PositionMoved)) throw e;
      // The compare-and-set failed: if the stored position is this batch's, an earlier try committed it (its answer was lost).
      const now = await this.load(position.route);
      if (now === position.text) return { out: undefined as T, committed: true };
      throw new BridgeError(
        'fatal',
        `the position of ${position.route} in ${this.name} moved under this run (another run writes the same route into this sink?): stopped so that no row lands twice. Run one process per cursor_id`,
      );
    } finally {
      this.owner.pending = undefined;
    }
  }

  /** The statements that move the route's position from `expectSeq` (run inside the batch's transaction). */
  async commitIn(conn: SqlConnection, p: PendingPosition): Promise<void> {
    const d = this.dialect;
    const t = d.table(this.name);
    const [route, last, seq, at] = ['route', 'last_position', 'seq', 'updated_at'].map((c) => d.quote(c));
    const { text } = p.position;
    if (p.expectSeq === 0) {
      try {
        await conn.query(`INSERT INTO ${t} (${route}, ${last}, ${seq}, ${at}) VALUES (${d.param(1)}, ${d.param(2)}, 1, ${d.now})`, [p.key, text]);
      } catch (e) {
        // Another run (or an earlier try of this batch) inserted it first.
        throw new PositionMoved((e as Error).message);
      }
      return;
    }
    const r = await conn.query(`UPDATE ${t} SET ${last} = ${d.param(1)}, ${seq} = ${seq} + 1, ${at} = ${d.now} WHERE ${route} = ${d.param(2)} AND ${seq} = ${d.param(3)}`, [text, p.key, p.expectSeq]);
    if (r.affected !== 1) throw new PositionMoved(`${p.position.route}: seq is no longer ${p.expectSeq}`);
  }
}

/** Leaves the batch's position out of what `fn` writes into `db` (a part of a batch written in a transaction of its own). */
export async function withoutPosition<T>(db: Database, fn: () => Promise<T>): Promise<T> {
  const p = db.pending;
  db.pending = undefined;
  try {
    return await fn();
  } finally {
    db.pending = p;
  }
}

/**
 * What a SQL sink does with positions (issue 28): opens its position table before the source
 * resumes, runs each write with the batch's position pending, and commits a position alone where a
 * batch left no write to carry it.
 */
export class PositionKeeper {
  private warned = false;

  constructor(
    readonly table: PositionTable,
    private readonly db: { transaction(fn: (c: SqlConnection) => Promise<void>): Promise<void> },
    private readonly warn: (text: string) => void,
  ) {}

  /** `table` of a sink, or none: position_table names it, in the schema of the sink's table unless qualified. */
  static tableName(value: string, sinkTable: string, dialect: Dialect): string | undefined {
    if (value === 'none') return undefined;
    dialect.table(value); // a bad identifier is a config error
    const schema = dialect.schemaOf(sinkTable);
    return value.includes('.') || !schema ? value : `${schema}.${value}`;
  }

  /** Writes with `commit` pending; when no transaction of the write carried it, commits it after the rows (at least once for that batch, said once). */
  async write<T>(commit: CommitPosition, write: () => Promise<T>, wrote: (out: T) => boolean = () => true): Promise<T> {
    const { out, committed } = await this.table.with(commit, write);
    if (!committed && wrote(out)) {
      if (!this.warned) this.warn(`this sink's write commits its rows without the route's position (the position is saved right after): a kill between the two re-sends that batch`);
      this.warned = true;
      await this.save(commit);
    }
    return out;
  }

  /** Commits a position in a transaction of its own. */
  async save(commit: CommitPosition): Promise<void> {
    await this.table.with(commit, () => this.db.transaction(async () => {}));
  }
}

/** A SQL sink's position table (position_table): opened (created unless a dry run) with its keeper; undefined for position_table=none. */
export async function openPositions(ep: Endpoint, sinkTable: string, db: Database, dryRun: boolean, warn: (t: string) => void): Promise<{ book: SinkPositions; keeper?: PositionKeeper } | undefined> {
  const name = PositionKeeper.tableName(ep.fields.position_table as string, sinkTable, db.dialect);
  if (!name) return undefined;
  const table = new PositionTable(db.dialect, name, db, sinkTable);
  await table.identify();
  const description = `table ${name} in the ${ep.kind} sink`;
  // A position stands for rows in the sink table: one whose table is gone or empty (dropped, truncated
  // to start over) is stale, and the source's own checkpoint decides where the run starts.
  const stale = async (route: string): Promise<boolean> => {
    const rows = await db.query(db.dialect.anyRow(sinkTable)).then((r) => r.rows.length, () => 0);
    if (rows === 0) warn(`${description} holds a position for ${route}, but ${sinkTable} is empty or missing: that position is not used (the source's checkpoint is)`);
    return rows === 0;
  };
  const load = async (route: string): Promise<string | undefined> => {
    const text = await table.load(route);
    return text !== undefined && (await stale(route)) ? undefined : text;
  };
  if (dryRun) return { book: { description, load: (route) => load(route).catch(() => undefined) } };
  const lock = db.dialect.ddlLock(name);
  await table.open((ddl) =>
    db.transaction(async (c) => {
      if (lock) await c.query(lock);
      for (const sql of ddl) await c.query(sql);
    }),
  );
  return { book: { description, load }, keeper: new PositionKeeper(table, db, warn) };
}
