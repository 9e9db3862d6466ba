import type { Message } from './message.js';

/**
 * The rows of one batch read from a table, moved without a message per row: a sink that writes
 * rows (a SQL table) takes them as they are; any other sink reads `messages()`, built on first use.
 * The engine only counts them; what a row holds is the source connector's business.
 */
export interface RowSet {
  /** Rows in the batch. */
  readonly count: number;
  /** Approximate bytes of the values, for throughput figures. */
  readonly bytes: number;
  /** One message per row (the row as a JSON object), built once on first use. */
  messages(): Message[];
  /** Makes the rows available again after a sink let go of them (see SqlRowSet.release); before messages() of a batch written again. */
  restore?(): Promise<void>;
}

/** A batch's size whichever way it travels. */
export function countOf(batch: { rows?: RowSet | undefined; messages: Message[] }): number {
  return batch.rows ? batch.rows.count : batch.messages.length;
}
