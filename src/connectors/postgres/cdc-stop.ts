import { configError } from '../../core/errors.js';
import { saySlotRemains, slotLag } from './cdc-setup.js';
import type { ReplicationStream } from './replication-stream.js';
import { formatLsn, parseLsn } from './pgoutput.js';

type Query = (sql: string, params?: unknown[]) => Promise<unknown[][]>;

/**
 * The end of a run's stream: the last confirmed position sent, the connection closed; then either
 * the line saying the slot remains (and what it holds), or (`drop`) the slot dropped.
 */
export async function stopCapture(q: Query, stream: ReplicationStream | undefined, confirmed: bigint, f: { slot_name: string; publication: string }, drop: { createdPublication: boolean } | undefined, info?: (text: string) => void): Promise<void> {
  if (stream) {
    stream.sendStatus(confirmed, false);
    await stream.end();
    if (!drop) await saySlotRemains(q, f.slot_name, info);
  }
  if (drop) await dropOnCleanStop(q, f, drop.createdPublication, info);
}

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

/** The WAL the slot holds beyond what was confirmed, read every 2 s for the progress view. */
export class LagWatch {
  bytes: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  start(q: Query, slot: string): void {
    this.timer = setInterval(() => void slotLag(q, slot).then((b) => (this.bytes = b), () => undefined), 2000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
