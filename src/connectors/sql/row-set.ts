import type { Message } from '../../core/message.js';
import type { RowSet } from '../../core/row-set.js';
import type { RowShape } from './values/row-fields.js';

/**
 * A batch in a kind's own wire format (PostgreSQL COPY text or binary), as the reader received it: a
 * sink of the same kind whose columns match takes the bytes unchanged; anything else parses them
 * into rows (text), or reads the rows again (binary).
 */
export interface WireRows {
  kind: string;
  format: string;
  chunks: Buffer[];
  /** Source column name and type of each field of a wire row, in order (the result's logical type). */
  columns: { name: string; dbType: string }[];
  /** Rows in the batch. */
  count: number;
  /** The rows as arrays of the same values a query would have returned; absent for a format only the kind itself reads (binary). */
  parse?(): unknown[][];
  /** The last row alone (the next range starts after its key). */
  last(): unknown[] | undefined;
}

/**
 * Rows read from a SQL table as the driver returned them (arrays, one value per column of `shape`
 * after `skip` position columns the reader selected for itself), or as wire bytes. Messages are
 * built only if a sink asks for them.
 */
export class SqlRowSet implements RowSet {
  private built: Message[] | undefined;
  private raw: unknown[][] | undefined;
  private arraysValue: unknown[][] | undefined;
  private wireRows: WireRows | undefined;

  constructor(
    readonly shape: RowShape,
    public count: number,
    readonly bytes: number,
    raw: unknown[][] | undefined,
    private readonly skip: number,
    /** The messages of rows as read (position columns included). */
    private readonly build: (raw: unknown[][]) => Message[],
    wire?: WireRows,
    /** Reads the batch's rows again (its key range), when the source can. */
    private readonly reread?: () => Promise<unknown[][]>,
  ) {
    this.raw = raw;
    this.wireRows = wire;
  }

  /** The batch in the kind's wire format, until released. */
  get wire(): WireRows | undefined {
    return this.wireRows;
  }

  private rows(): unknown[][] {
    if (this.raw) return this.raw;
    if (this.wireRows?.parse) return (this.raw = this.wireRows.parse());
    throw new Error('the rows of this batch were released or are in binary, and were not restored (a bug)');
  }

  /** One array of driver values per row, in the shape's column order. */
  arrays(): unknown[][] {
    if (this.arraysValue) return this.arraysValue;
    const raw = this.rows();
    return (this.arraysValue = this.skip ? raw.map((r) => r.slice(this.skip)) : raw);
  }

  messages(): Message[] {
    return (this.built ??= this.build(this.rows()));
  }

  /**
   * Lets go of the values (and wire bytes) once a sink sent them, when they can be had again (by
   * reading the key range again, or parsing the bytes kept): a batch waiting for its commit then
   * holds nothing the garbage collector must copy (rows kept alive until a commit cost more in
   * collection than in conversion), and no bytes already sent.
   */
  release(): void {
    if (this.reread) this.wireRows = undefined;
    else if (!this.wireRows?.parse) return;
    this.raw = this.arraysValue = this.built = undefined;
  }

  /**
   * The rows again after release(): the key range read again (a batch written again after a
   * failure has the rows the range holds then, as any later read), or the wire bytes parsed again.
   */
  async restore(): Promise<void> {
    if (this.raw || this.wireRows?.parse || !this.reread) return;
    this.raw = await this.reread();
    this.count = this.raw.length;
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
