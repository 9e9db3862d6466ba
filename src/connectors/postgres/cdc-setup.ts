import { configError, type BridgeError } from '../../core/errors.js';
import type { DescribedTable } from '../../core/route.js';
import type { SqlConnection, TableInfo } from '../sql/types.js';
import { parseLsn } from './pgoutput.js';
import { classifyPg, pgPoolFactory } from './driver.js';
import type { Endpoint } from '../../config/endpoint.js';
import type { Database } from '../sql/database.js';
import { postgresKind } from './index.js';

type Query = (sql: string, params?: unknown[]) => Promise<unknown[][]>;

/**
 * Checks what change capture needs (wal_level, the table), creates the publication (first: a slot
 * created before it could not decode its changes) and the slot, and notes the WAL end a copy stops at.
 */
export async function prepareCapture(
  q: Query,
  f: { publication: string; slot_name: string; create_publication: boolean; temporary_slot: boolean; operations: ReadonlySet<string> },
  tables: readonly string[],
  dryRun: boolean,
  slotMaker?: SlotMaker,
  /** snapshot=initial: the caller creates the slot itself (exporting its snapshot). */
  copyFirst = false,
): Promise<{ walEnd: bigint; stopped?: boolean; createdPublication: boolean }> {
  const level = String((await q('SHOW wal_level'))[0]![0]);
  if (level !== 'logical') throw configError(`change capture needs wal_level=logical (the server has ${level}): run ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL`);
  const createdPublication = await ensurePublication(q, f.publication, tables, f.create_publication, dryRun, f.operations);
  if (!dryRun && !f.temporary_slot && !copyFirst && (await ensureSlot(q, f.slot_name, slotMaker)) === 'stopped') return { walEnd: 0n, stopped: true, createdPublication };
  return { walEnd: parseLsn(String((await q('SELECT pg_current_wal_lsn()::text'))[0]![0])), createdPublication };
}

/** Each captured table's columns and keys; a missing one is a config error. */
export async function introspectAll(conn: SqlConnection['query'], tables: readonly string[]): Promise<Map<string, TableInfo>> {
  const infos = new Map<string, TableInfo>();
  for (const t of tables) {
    const info = await postgresKind.dialect.introspect({ query: conn }, t);
    if (!info.exists) throw configError(`table ${t} does not exist in the postgres source`);
    infos.set(t, info);
  }
  return infos;
}

/** A captured table as a sink sees it (for a typed mirror); one created while a pattern's capture ran is read when its sink is made. */
export async function describeListed(conn: SqlConnection['query'], infos: Map<string, TableInfo>, tables: readonly string[], t: string): Promise<DescribedTable | undefined> {
  if (!infos.has(t) && tables.includes(t)) for (const [k, v] of await introspectAll(conn, [t])) infos.set(k, v);
  const info = infos.get(t);
  return info && describeCaptured(info);
}

/** The captured table as a sink sees it (for a typed mirror). */
export function describeCaptured(info: TableInfo): DescribedTable {
  const binder = postgresKind.dialect.binder;
  const columns = info.columns.map((c) => ({ name: c.name, type: c.type, dbType: c.dbType, kind: 'postgres', nullable: c.nullable, detail: { col: c, type: c.type, loose: false, kind: 'postgres', binder } }));
  return { columns, primaryKey: info.primaryKey, unique: info.uniqueSets };
}

/** Bytes of WAL the slot keeps beyond what was confirmed. */
export async function slotLag(q: Query, slot: string): Promise<number | undefined> {
  const r = await q('SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint::text FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  return r.length ? Number(r[0]![0]) : undefined;
}

const causeCode = (e: unknown): string | undefined => (e as { cause?: { code?: string } }).cause?.code ?? (e as { code?: string }).code;

/**
 * Creates the publication if asked, refusing one that would break the application's writes: a table
 * without a primary key or replica identity whose updates and deletes are published makes every
 * UPDATE and DELETE on it fail ("cannot update table … because it does not have a replica identity"),
 * even after bridge exits.
 */
export async function ensurePublication(q: Query, pub: string, tables: readonly string[], create: boolean, dryRun: boolean, ops?: ReadonlySet<string>): Promise<boolean> {
  const d = postgresKind.dialect;
  // Advice holds SQL to run: names as psql takes them ("Order Details" quoted, orders bare).
  const sql = (t: string): string => t.split('.').map((p) => (/^[a-z_][a-z0-9_]*$/.test(p) ? p : d.quote(p))).join('.');
  const list = tables.map(sql).join(', ');
  if ((await q('SELECT 1 FROM pg_publication WHERE pubname = $1', [pub])).length > 0) {
    const missing: string[] = [];
    for (const t of tables) if ((await publishes(q, pub, t)).length === 0) missing.push(t);
    if (missing.length) throw configError(`publication ${pub} does not publish ${missing.join(', ')}: run ALTER PUBLICATION ${pub} ADD TABLE ${missing.map(sql).join(', ')} (or name another publication)`);
    return false;
  }
  if (!create) throw configError(`publication ${pub} does not exist: set create_publication=true, or run CREATE PUBLICATION ${pub} FOR TABLE ${list}`);
  for (const table of tables) {
    const identity = await q(
      `SELECT c.relreplident, EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND (i.indisprimary OR i.indisreplident))
         FROM pg_class c WHERE c.oid = to_regclass($1)`,
      [d.table(table)],
    );
    const [replident, keyed] = identity[0] ?? [];
    const writesOnly = ops && !ops.has('update') && !ops.has('delete');
    if (!writesOnly && (replident === 'n' || (replident === 'd' && keyed !== true && keyed !== 't')))
      throw configError(
        `${table} has no primary key or replica identity: a publication of its updates and deletes would make the application's own UPDATE and DELETE on it fail. ` +
          `Add a primary key, or run ALTER TABLE ${sql(table)} REPLICA IDENTITY FULL, or publish inserts only: CREATE PUBLICATION ${pub} FOR TABLE ${sql(table)} WITH (publish = 'insert')`,
      );
  }
  // A dry run checks that the publication could be made, and makes nothing.
  if (dryRun) return false;
  // Only the operations asked for are published: the server then decodes nothing else.
  const publish = ops && ops.size < 4 ? ` WITH (publish = '${[...ops].join(', ')}')` : '';
  try {
    await q(`CREATE PUBLICATION ${d.quote(pub)} FOR TABLE ${tables.map((t) => d.table(t)).join(', ')}${publish}`);
  } catch (e) {
    if (causeCode(e) === '42501')
      throw configError(`creating publication ${pub} needs ownership of ${list}: connect as their owner, or have the owner run CREATE PUBLICATION ${pub} FOR TABLE ${list}`);
    if (!/already exists/.test((e as Error).message)) throw e;
    return false;
  }
  return true;
}

/** Whether the publication publishes the table (FOR ALL TABLES, IN SCHEMA or by name). */
async function publishes(q: Query, pub: string, table: string): Promise<unknown[][]> {
  return q(
    `SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND (schemaname, tablename) = (SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($2))`,
    [pub, postgresKind.dialect.table(table)],
  );
}

/**
 * How a slot is created so that a stop can interrupt it: creating one waits for every transaction
 * that has written, in any database, which can take as long as the longest of them.
 */
export interface SlotMaker {
  stop: AbortSignal;
  /** Runs `fn` on one connection, told that connection's backend pid. */
  withSession<T>(fn: (query: Query, pid: string) => Promise<T>): Promise<T>;
  /** Cancels the statement the backend `pid` runs (from a connection of its own). */
  cancel(pid: string): Promise<void>;
}

/** Creates the replication slot if missing; refuses one of another plugin or in use. 'stopped': a stop came first, and no slot of this run is left. */
export async function ensureSlot(q: Query, slot: string, maker?: SlotMaker): Promise<'ok' | 'stopped'> {
  if (!(await slotExists(q, slot))) {
    if (maker?.stop.aborted) return 'stopped';
    try {
      if (!maker) await q(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
      else if ((await createStoppably(slot, maker)) === 'stopped') return 'stopped';
    } catch (e) {
      const code = causeCode(e);
      if (code === '42501') throw configError(`creating replication slot ${slot} needs the REPLICATION attribute: ALTER ROLE <user> WITH REPLICATION`);
      if (code !== '42710') throw e; // created by someone else meanwhile: fine
    }
    return 'ok';
  }
  return 'ok';
}

/** Whether the slot exists; refuses one of another plugin or in use. */
export async function slotExists(q: Query, slot: string): Promise<boolean> {
  const rows = await q('SELECT plugin, active_pid FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  if (rows.length === 0) return false;
  const [plugin, pid] = rows[0]!;
  if (plugin !== 'pgoutput') throw configError(`replication slot ${slot} uses the ${String(plugin)} plugin, not pgoutput: choose another slot_name`);
  if (pid !== null && pid !== undefined) throw configError(`replication slot ${slot} is in use by server process ${String(pid)} (another bridge tail?): stop it, or give this one another slot_name`);
  return true;
}

/** Slot creation that a stop cancels: the statement runs on one pooled connection, the cancel on a connection of its own. */
export function slotMaker(db: Database, ep: Endpoint, warn: (s: string) => void, stop: AbortSignal): SlotMaker {
  return {
    stop,
    withSession: (fn) =>
      db.withConnection(async (c) => {
        const pid = String((await c.query('SELECT pg_backend_pid()')).rows[0]![0]);
        return fn(async (sql, params) => (await c.query(sql, params)).rows, pid);
      }),
    cancel: async (pid) => {
      const c = await pgPoolFactory(ep, warn).create();
      try {
        await c.query('SELECT pg_cancel_backend($1::int)', [pid]);
      } finally {
        await c.client.end();
      }
    },
  };
}

/** Creates the slot; a stop meanwhile cancels the creation, and drops the slot if it was made all the same. */
async function createStoppably(slot: string, maker: SlotMaker): Promise<'ok' | 'stopped'> {
  return maker.withSession(async (query, pid) => {
    const onStop = (): void => void maker.cancel(pid).catch(() => {});
    maker.stop.addEventListener('abort', onStop, { once: true });
    try {
      await query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
    } catch (e) {
      if (maker.stop.aborted && causeCode(e) === '57014') return 'stopped';
      throw e;
    } finally {
      maker.stop.removeEventListener('abort', onStop);
    }
    if (!maker.stop.aborted) return 'ok';
    // Made just as the stop came: nothing has read from it, so it goes.
    await query('SELECT pg_drop_replication_slot($1)', [slot]);
    return 'stopped';
  });
}

/** A slot outlives the process and keeps WAL until it is dropped: says so, and how, when the run ends. */
export async function saySlotRemains(q: Query, slot: string, info: ((text: string) => void) | undefined): Promise<void> {
  const held = await slotHolds(q, slot).catch(() => undefined);
  if (held !== undefined) info?.(`replication slot ${slot} remains (it holds ${held} of WAL until a tail resumes from it); when you no longer need it: bridge slots drop ${slot} <url>`);
}

/** The slot's WAL retention, for the line a stopped tail prints. */
export async function slotHolds(q: Query, slot: string): Promise<string | undefined> {
  const r = await q('SELECT pg_size_pretty((pg_current_wal_lsn() - restart_lsn)::bigint) FROM pg_replication_slots WHERE slot_name = $1 AND NOT temporary', [slot]);
  return r.length ? String(r[0]![0]) : undefined;
}

/**
 * What a replication error means for the user. A publication that "does not exist" although it
 * does means the slot's position predates it (pgoutput reads the catalog as of the slot's WAL).
 */
export async function explainStreamError(e: unknown, q: Query, pub: string, slot: string, table: string): Promise<BridgeError> {
  const code = (e as { code?: string }).code;
  const msg = (e as Error).message;
  if (code === '55006') return configError(`replication slot ${slot} is in use by another process (another bridge tail?): stop it, or give this one another slot_name`);
  if (code === '42704' || /publication .* does not exist/.test(msg)) {
    const exists = (await q('SELECT 1 FROM pg_publication WHERE pubname = $1', [pub]).catch(() => [])).length > 0;
    if (exists)
      return configError(
        `replication slot ${slot} was created before publication ${pub}, so PostgreSQL cannot decode the changes it holds with it: drop the slot (bridge slots drop ${slot} <url>) and start again, or use another slot_name (changes before the new slot are not streamed)`,
      );
    return configError(`publication ${pub} does not exist: set create_publication=true, or run CREATE PUBLICATION ${pub} FOR TABLE ${table}`);
  }
  if (code === '42501') return configError(`change capture needs the REPLICATION attribute: ALTER ROLE <user> WITH REPLICATION (${msg})`);
  return classifyPg(e);
}

export const lostTemporarySlot = (): BridgeError =>
  configError('the replication connection was lost and its temporary slot with it: changes since then cannot be streamed; run again (without temporary_slot to resume where it stopped)');
