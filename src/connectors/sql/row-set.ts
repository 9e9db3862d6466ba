import type { Message } from '../../core/message.js';
import type { RowSet } from '../../core/row-set.js';
import type { RowShape } from './row-fields.js';

/**
 * A batch in a kind's own wire format (PostgreSQL COPY text), as the reader received it: a sink of
 * the same kind whose columns match takes the bytes unchanged; anything else parses them into rows.
 */
export interface WireRows {
  kind: string;
  format: string;
  chunks: Buffer[];
  /** Source column name and declared type of each field of a wire row, in order. */
  columns: { name: string; dbType: string }[];
  /** Rows in the batch. */
  count: number;
  /** The rows as arrays of the same values a query would have returned. */
  parse(): unknown[][];
  /** The last row alone (the next range starts after its key). */
  last(): unknown[] | undefined;
}

/**
 * Rows read from a SQL table as the driver returned them (arrays, one value per column of `shape`),
 * or as wire bytes. Messages are built only if a sink asks for them.
 */
export class SqlRowSet implements RowSet {
  private built: Message[] | undefined;
  private arraysValue: unknown[][] | undefined;

  constructor(
    readonly shape: RowShape,
    readonly count: number,
    readonly bytes: number,
    rows: unknown[][] | undefined,
    private readonly build: (rows: unknown[][]) => Message[],
    readonly wire?: WireRows,
  ) {
    this.arraysValue = rows;
  }

  /** One array of driver values per row, in the shape's column order. */
  arrays(): unknown[][] {
    return (this.arraysValue ??= this.wire!.parse());
  }

  messages(): Message[] {
    return (this.built ??= this.build(this.arrays()));
  }
}

/** Bytes of a batch estimated from a sample of its rows (throughput figures, not accounting). */
export function estimateBytes(rows: unknown[][], skip = 0): number {
  const n = rows.length;
  if (n === 0) return 0;
  const step = Math.max(1, Math.floor(n / 16));
  let sampled = 0;
  let bytes = 0;
  for (let i = 0; i < n; i += step) {
    const row = rows[i]!;
    bytes += 2;
    for (let k = skip; k < row.length; k++) {
      const v = row[k];
      bytes += typeof v === 'string' ? v.length + 4 : Buffer.isBuffer(v) ? v.length + 4 : 8;
    }
    sampled++;
  }
  return Math.round((bytes / sampled) * n);
}
