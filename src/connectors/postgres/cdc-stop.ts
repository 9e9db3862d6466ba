import { configError } from '../../core/errors.js';
import { formatLsn, parseLsn } from './pgoutput.js';

type Query = (sql: string, params?: unknown[]) => Promise<unknown[][]>;

/**
 * drop_slot=true on a run that ended as asked: the slot goes (no WAL is kept for a run that may
 * never come), and with it the publication if this run created it. Said in an info line.
 */
export async function dropOnCleanStop(q: Query, f: { slot_name: string; publication: string }, createdPublication: boolean, info?: (text: string) => void): Promise<void> {
  // The replication connection has ended, but the server may take a moment to mark the slot inactive.
  for (let i = 0; i < 50; i++) {
    const r = await q('SELECT active FROM pg_replication_slots WHERE slot_name = $1', [f.slot_name]).catch(() => []);
    if (r.length === 0) break;
    if (r[0]![0] !== true && r[0]![0] !== 't') {
      await q('SELECT pg_drop_replication_slot($1)', [f.slot_name]).catch(() => {});
      info?.(`replication slot ${f.slot_name} dropped (drop_slot=true): the next run starts with a new snapshot`);
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (createdPublication) await q(`DROP PUBLICATION IF EXISTS "${f.publication.replace(/"/g, '""')}"`).catch(() => {});
}

/** start_position must not be before what the slot has confirmed: those changes are gone from it. */
export async function checkStartPosition(q: Query, slot: string, start: bigint): Promise<void> {
  const r = await q('SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  const confirmed = r[0]?.[0];
  if (typeof confirmed !== 'string') return;
  if (start < parseLsn(confirmed)) throw configError(`start_position ${formatLsn(start)} is before what replication slot ${slot} has confirmed (${confirmed}): the changes before it are no longer kept; give a later position, or leave start_position out`);
}
