import type { CheckpointStore } from '../../../checkpoint/envelope.js';
import type { SinkPositions } from '../../../core/route.js';
import type { Database } from '../database.js';
import type { ColumnInfo } from '../types.js';
import type { RowMessages } from './rows.js';

/** What a cursor reader (read-cursor.ts) is given. */
export interface CursorOptions {
  db: Database;
  /** Select list (conversions that keep values exact on some kinds). */
  select?: string;
  table: string;
  column: ColumnInfo;
  /** Primary key columns; with them, pages are keyset on (cursor, key) and never hold a whole run. */
  primaryKey: ColumnInfo[];
  rows: RowMessages;
  store: CheckpointStore | undefined;
  cursorId: string | undefined;
  /** cursor_lag_ms: how long a window stays open for rows whose cursor value a client's clock set. */
  lagMs: number;
  /**
   * When the run ends at the first empty poll (copy, --exit-when-drained): how long to wait for the
   * last windows' transactions before stopping with the frontier behind (re-read next run).
   */
  settleMs: number;
  warn(text: string): void;
  /** The sink keeps positions with its rows (exactly once): resume from its, and give each batch its commit. */
  sinkPositions?: (() => Promise<SinkPositions | undefined>) | undefined;
}
