import { configError } from '../core/errors.js';

/** Decisions §3: the stored form of a cursor position. */
export interface Envelope {
  bridge_checkpoint: 1;
  /** `<kind>:<table>:<cursor_column>`: a checkpoint is only valid for the source that wrote it. */
  source: string;
  /** `int:42` or `str:<text>`: typed so that the value round-trips exactly. */
  value: string;
  /**
   * Paging on (cursor, primary key): the key of the last row delivered with `value`, so that a long
   * run of equal cursor values resumes in its middle. Absent: every row with `value` was delivered.
   */
  after?: string[];
  updated_at_ms: number;
}

export function makeEnvelope(source: string, value: string, isInteger: boolean, after?: string[]): Envelope {
  return { bridge_checkpoint: 1, source, value: `${isInteger ? 'int' : 'str'}:${value}`, ...(after ? { after } : {}), updated_at_ms: Date.now() };
}

/** The raw value of an envelope (without its type tag). */
export const envelopeValue = (e: Envelope): string => e.value.slice(e.value.indexOf(':') + 1);

/** Parses a stored envelope and checks it belongs to `source`. */
export function readEnvelope(text: string, source: string, where: string): Envelope {
  let e: Envelope;
  try {
    e = JSON.parse(text) as Envelope;
  } catch {
    throw configError(`the checkpoint in ${where} is not a bridge checkpoint (not JSON); delete it or use another cursor_id`);
  }
  if (e?.bridge_checkpoint !== 1 || typeof e.source !== 'string' || typeof e.value !== 'string' || !/^(int|str):/.test(e.value) || (e.after !== undefined && !Array.isArray(e.after)))
    throw configError(`the checkpoint in ${where} is not a bridge checkpoint; delete it or use another cursor_id`);
  if (e.source !== source)
    throw configError(`the checkpoint in ${where} was written for ${e.source}, not ${source}: use another cursor_id, or delete it to start over`);
  return e;
}

/**
 * Where positions are kept: a key → text map with a compare-and-set, which is all the leases of
 * two processes on one cursor_id need. Implementations: SQL table, file, S3, GCS, Azure, MongoDB.
 */
export interface CheckpointStore {
  /** For plans and messages; never holds a secret. */
  readonly description: string;
  open(): Promise<void>;
  /** The stored text of a key, if any. */
  load(key: string): Promise<string | undefined>;
  put(key: string, text: string): Promise<void>;
  /** Writes `next` (deletes when undefined) only if the stored text is `expected` (undefined = absent). */
  swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean>;
  close(): Promise<void>;
}
