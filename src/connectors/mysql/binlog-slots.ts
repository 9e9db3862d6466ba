import { BridgeError } from '../../core/errors.js';
import type { SlotRow } from '../postgres/slots.js';
import { compareFilePos, formatPosition, type CaptureState } from './binlog-position.js';

type Conn = import('mysql2/promise').Connection;

async function connect(url: string): Promise<Conn> {
  const mysql = (await import('mysql2/promise')).default;
  try {
    return await mysql.createConnection({ uri: url.replace(/^(mariadb|mysql)(\+cdc)?:/, 'mysql:'), supportBigNumbers: true, bigNumberStrings: true });
  } catch (e) {
    throw new BridgeError('connect', `cannot connect to ${url.startsWith('mysql') ? 'MySQL' : 'MariaDB'}: ${(e as Error).message}`, { cause: e });
  }
}

/** Every `cdc:<name>` entry of bridge's default checkpoint tables (bridge_cursors_*) of the URL's database, with the table it is in. */
async function captures(c: Conn): Promise<{ table: string; name: string; state: CaptureState }[]> {
  const [tables] = await c.query(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'bridge\\_cursors\\_%'`);
  const out: { table: string; name: string; state: CaptureState }[] = [];
  for (const { t } of tables as { t: string }[]) {
    const [rows] = await c.query(`SELECT cursor_id, last_value FROM \`${t.replace(/`/g, '``')}\` WHERE cursor_id LIKE 'cdc:%'`).catch(() => [[]]);
    for (const r of rows as { cursor_id: string; last_value: string }[]) {
      try {
        const state = JSON.parse(r.last_value) as CaptureState;
        if (state.bridge_binlog === 1) out.push({ table: t, name: r.cursor_id.slice(4), state });
      } catch {
        // not bridge's binlog state: left out
      }
    }
  }
  return out;
}

const pretty = (n: number): string => (n < 1024 ? `${n} bytes` : n < 1024 ** 2 ? `${Math.round(n / 1024)} kB` : n < 1024 ** 3 ? `${Math.round(n / 1024 ** 2)} MB` : `${(n / 1024 ** 3).toFixed(1)} GB`);

/**
 * The binlog captures of a database, as `bridge slots` shows PostgreSQL's slots: a binlog capture
 * has no slot on the server, only its position kept under `cdc:<name>`. "holds" is the binlog
 * written after that position (what a resumed run reads); the server does not keep its files for
 * bridge, so a position in a file already purged is shown as `purged` (that capture cannot resume).
 */
export async function listSlots(url: string): Promise<SlotRow[]> {
  const c = await connect(url);
  try {
    const [logs] = await c.query('SHOW BINARY LOGS');
    const files = (logs as { Log_name: string; File_size: number | string }[]).map((l) => ({ file: l.Log_name, size: Number(l.File_size) }));
    const [[db]] = (await c.query('SELECT DATABASE() AS d')) as unknown as [{ d: string }[]];
    return (await captures(c)).map(({ name, state }) => {
      const at = state.position ?? state.snapshot?.join;
      const kept = at?.file === undefined || files.some((f) => f.file === at.file);
      const after = at?.file === undefined ? undefined : files.filter((f) => compareFilePos({ file: f.file }, { file: at.file }) >= 0).reduce((n, f) => n + (f.file === at.file ? Math.max(0, f.size - (at.pos ?? 0)) : f.size), 0);
      const snap = state.snapshot;
      return {
        slot_name: name,
        plugin: 'binlog',
        database: db?.d ?? null,
        active_pid: null,
        temporary: false,
        wal_status: kept ? 'kept' : 'purged',
        holds: after === undefined ? null : pretty(after),
        holds_bytes: after === undefined ? null : String(after),
        confirmed_flush_lsn: at ? formatPosition(at) : null,
        initial_copy: snap ? `${snap.table ?? 'next table'} ${snap.after ? `after key ${JSON.stringify(snap.after)}` : 'not started'} (${snap.done.length} done)` : null,
      };
    });
  } finally {
    await c.end();
  }
}

/** Deletes a binlog capture's kept position (the next run under that name starts again with its snapshot). */
export async function dropSlot(url: string, name: string): Promise<void> {
  const c = await connect(url);
  try {
    const found = (await captures(c)).filter((x) => x.name === name);
    if (found.length === 0) throw new BridgeError('config', `no binlog capture named ${name} in this database (bridge slots lists them)`);
    for (const f of found) await c.query(`DELETE FROM \`${f.table.replace(/`/g, '``')}\` WHERE cursor_id = ?`, [`cdc:${name}`]);
  } finally {
    await c.end();
  }
}
