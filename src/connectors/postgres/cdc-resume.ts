import type { SinkPositions } from '../../core/route.js';
import { ChangeSinkPosition, type ChangeNaming } from '../sql/capture/change-position.js';
import type { ChangeAssembler } from './cdc-changes.js';
import { formatLsn, parseLsn } from './pgoutput.js';

/** Commits as LSNs; a change's transaction is its commit LSN in its id (`pg:<table>:<lsn>:<n>`, see seed). */
export const PG_NAMING: ChangeNaming = {
  show: formatLsn,
  place: (seed) => {
    const m = /:([0-9A-F]+\/[0-9A-F]+):(\d+)$/.exec(seed);
    return m ? { tx: m[1]!, n: Number(m[2]) } : undefined;
  },
};

/** The sink's position of a slot's stream (exactly once), if it keeps one: `changes` skips what it holds; `end` is the LSN to confirm. */
export async function resumeFromSink(positions: (() => Promise<SinkPositions | undefined>) | undefined, slot: string, changes: ChangeAssembler): Promise<{ sinkPos: ChangeSinkPosition; end: bigint } | undefined> {
  const sinkPos = await ChangeSinkPosition.open(positions, `cdc:${slot}`, `postgres:${slot}`, PG_NAMING);
  const kept = await sinkPos?.load();
  if (!sinkPos) return undefined;
  const end = kept?.end ? parseLsn(kept.end) : 0n;
  if (kept) changes.resumeAfter(end, kept.partial?.tx, kept.partial?.count);
  return { sinkPos, end };
}
