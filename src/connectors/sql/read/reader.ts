import type { PlanItem, SourceBatch } from '../../../core/route.js';

/** One read strategy of the SQL consumer (cursor, snapshot, lease, locked delete, select_query). */
export interface Reader {
  /** The next batch, or null when nothing is there right now. */
  poll(max: number): Promise<SourceBatch | null>;
  /** Whether an empty poll means "the end" even in tail (a snapshot has no future rows). */
  readonly finite: boolean;
  plan(): PlanItem[];
  /** Rows left to read, when cheap to know. */
  estimate?(): Promise<number | null>;
  /** Where the persisted position stands, if the reader persists one. */
  checkpoint?(): string | undefined;
  resumedFrom?(): string | undefined;
  /** Whole rows for a SQL sink (SnapshotReader.rowBatches): wire ranges, or driver rows; undefined: messages. */
  readonly rowBatches?: { wire: true; size: number } | { wire: false } | undefined;
  /** The sink takes wire rows unchanged in `format`: whether this reader reads them so. */
  useWireFormat?(format: string): boolean;
  /** Releases what the reader holds (open transactions). */
  close?(): Promise<void>;
}
