import type { SourceBatch } from '../../../core/route.js';
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
