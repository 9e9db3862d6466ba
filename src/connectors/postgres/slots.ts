import { BridgeError } from '../../core/errors.js';

/** One replication slot as `bridge slots` shows it. */
export interface SlotRow {
  slot_name: string;
  plugin: string | null;
  database: string | null;
  active_pid: number | null;
  temporary: boolean;
  wal_status: string | null;
  holds: string | null;
  holds_bytes: string | null;
  confirmed_flush_lsn: string | null;
  /** An initial copy this slot was made for that has not ended (from bridge's default checkpoint tables): where it stands. */
  initial_copy: string | null;
}

/**
 * The initial-copy progress kept under `cdc:<slot>` in bridge's default checkpoint tables
 * (bridge_cursors_* of the database the URL names): `orders after key 4500`, or `orders, not started`.
 */
async function copyProgress(client: import('pg').Client): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const tables = await client.query<{ t: string }>(`SELECT format('%I.%I', table_schema, table_name) AS t FROM information_schema.tables WHERE table_name LIKE 'bridge\\_cursors\\_%'`);
  for (const { t } of tables.rows) {
    const rows = await client.query<{ cursor_id: string; last_value: string }>(`SELECT cursor_id, last_value FROM ${t} WHERE cursor_id LIKE 'cdc:%'`).catch(() => ({ rows: [] }));
    for (const r of rows.rows) {
      try {
        const p = JSON.parse(r.last_value) as { bridge_initial_copy?: number; table?: string; after?: string[] | null };
        if (p.bridge_initial_copy === 1) out.set(r.cursor_id.slice(4), `${p.table ?? '?'} ${p.after ? `after key ${p.after.join(', ')}` : 'not started'}`);
      } catch {
        // not bridge's: left out
      }
    }
  }
  return out;
}

async function connect(url: string) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url, application_name: 'bridge' });
  try {
    await client.connect();
  } catch (e) {
    throw new BridgeError('connect', `cannot connect to PostgreSQL: ${(e as Error).message}`, { cause: e });
  }
  return client;
}

/** Every replication slot of the server: whether it is in use, and how much WAL it keeps. */
export async function listSlots(url: string): Promise<SlotRow[]> {
  const client = await connect(url);
  try {
    const r = await client.query<Omit<SlotRow, 'initial_copy'>>(
      `SELECT slot_name, plugin, database, active_pid, temporary, wal_status,
              pg_size_pretty((pg_current_wal_lsn() - restart_lsn)::bigint) AS holds, (pg_current_wal_lsn() - restart_lsn)::bigint::text AS holds_bytes,
              confirmed_flush_lsn::text
         FROM pg_replication_slots ORDER BY slot_name`,
    );
    const copies = await copyProgress(client).catch(() => new Map<string, string>());
    return r.rows.map((row) => ({ ...row, initial_copy: copies.get(row.slot_name) ?? null }));
  } finally {
    await client.end();
  }
}

/** Drops a slot (the WAL it kept can then be recycled); a missing or active slot is refused by name. */
export async function dropSlot(url: string, name: string): Promise<void> {
  const client = await connect(url);
  try {
    const found = await client.query<{ active_pid: number | null }>('SELECT active_pid FROM pg_replication_slots WHERE slot_name = $1', [name]);
    if (found.rows.length === 0) throw new BridgeError('config', `no replication slot named ${name} (bridge slots lists them)`);
    const pid = found.rows[0]!.active_pid;
    if (pid) throw new BridgeError('config', `replication slot ${name} is in use by server process ${pid}: stop the tail that streams from it first`);
    await client.query('SELECT pg_drop_replication_slot($1)', [name]);
  } finally {
    await client.end();
  }
}
