import { BridgeError } from '../../../core/errors.js';
import type { SourceBatch } from '../../../core/route.js';
import type { Database } from '../database.js';
import type { WireRows } from '../row-set.js';
import type { SqlResult } from '../types.js';
import type { RowMessages } from './rows.js';

/**
 * A batch of a relation read whole by one statement (no key to page by: MySQL's keyless tables,
 * PostgreSQL's views, SQLite's views): its rows numbered from the start of the read (`row N`, also
 * in their ids), nothing to acknowledge (such a read does not resume).
 */
export function numberedBatch(rows: RowMessages, res: SqlResult, idPrefix: string, first: number, wire?: WireRows): SourceBatch {
  const set = rows.rowSet(res, 0, (_row, i) => idPrefix + String(first + i + 1), wire);
  return {
    get messages() {
      return set.messages();
    },
    rows: set,
    position: `row ${first + set.count}`,
    ack: async () => {},
  };
}

/**
 * The error of such a read cut off part-way: it cannot resume where it was, and retried it would go
 * on from a statement already closed (or read the table again from its first row), so a failure
 * worth retrying stops the run instead (exit 3), to be run again.
 */
export function notResumable(db: Database, table: string, read: number, e: unknown): BridgeError {
  const error = db.driver.classify(e);
  return error.kind === 'transient' ? new BridgeError('connect', `reading ${table} (no primary key) was cut off after ${read} rows and cannot resume: ${error.message}`, { cause: e }) : error;
}
