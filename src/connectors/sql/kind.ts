import type { Endpoint } from '../../config/endpoint.js';
import type { BridgeError } from '../../core/errors.js';
import type { Source } from '../../core/route.js';
import { kindEntry } from '../kinds.js';
import type { Database } from './database.js';
import type { Dialect } from './dialect.js';
import type { PoolFactory } from './pool.js';
import type { Reader } from './read/reader.js';
import type { RowMessages } from './read/rows.js';
import type { WireRows } from './row-set.js';
import type { TokenQuery } from './write/tokens.js';
import type { ColumnInfo, SqlConnection, SqlResult } from './types.js';
import type { SchemaExtras } from './schema/extras.js';
import type { ColumnsOptions } from './write/write-columns.js';
import type { Writer } from './write/writer.js';

/**
 * What one database kind plugs into the shared SQL layer. Everything that differs between
 * databases is here or on the dialect; the optional members are a kind's own faster paths (loaded
 * when a route uses them), and the shared code falls back to its generic ones without them.
 */
export interface KindDriver {
  dialect: Dialect;
  poolFactory(ep: Endpoint, warn: (s: string) => void): PoolFactory<SqlConnection>;
  classify(e: unknown, connecting?: boolean): BridgeError;
  /** The database does not enforce declared types (SQLite): render defensively. */
  loose: boolean;
  /** Parses array text into elements (PostgreSQL). */
  parseArray?: (text: string) => unknown;
  /** columns=auto through the kind's bulk path (PostgreSQL COPY). */
  columnsWriter?(db: Database, o: ColumnsOptions): Promise<Writer | undefined>;
  /** The default insert through the kind's bulk path (COPY, TDS bulk load). */
  defaultWriter?(db: Database, table: string, payload: ColumnInfo): Promise<(Writer & { warn?: (s: string) => void }) | undefined>;
  /** bulk_copy=true: the plan is checked before connecting (a config error), the writer made after. */
  bulkCopy?(insert: TokenQuery): Promise<(db: Database) => Writer>;
  /** The longest statement the server takes, in bytes (MySQL/MariaDB max_allowed_packet); none when there is no such limit. */
  statementLimit?(db: Database): Promise<number>;
  /**
   * A snapshot of a table without a primary key, read the kind's own way (PostgreSQL's heap blocks,
   * MySQL's one streamed SELECT, a view's one statement); undefined leaves it to the dialect's
   * rowPosition (SQLite's rowid).
   */
  keylessReader?(db: Database, table: string, rows: RowMessages, select: string): Promise<Reader | undefined>;
  /**
   * Reads a key range of a table in the kind's own wire format (PostgreSQL COPY text, or binary) as
   * one stream, batch by batch: a sink of the same kind takes the bytes unchanged. `select` may
   * hold bound parameters.
   */
  streamWire?(db: Database, select: string, params: readonly unknown[], columns: { name: string; dbType: string }[], format: 'text' | 'binary'): WireStream;
  /**
   * Reads a key range of a table as one streamed query, batch by batch, as the values a query
   * returns (the server sends on without a statement per batch; MySQL/MariaDB).
   */
  streamRows?(db: Database, select: string, params: readonly unknown[]): RowStream;
  /** Whether ranges of a table keyed by `keys` can be read in binary (the last key decoded from it). */
  binaryWire?(keys: ColumnInfo[]): boolean;
  /** Change capture: publication= on a table's URL, or the change-capture endpoint (fields.dedicated, tables=). */
  changeSource?(ep: Endpoint): Promise<Source>;
  /** A migration's last step: the secondary indexes, foreign keys, checks and defaults this kind reads and adds. */
  schemaExtras?(): Promise<SchemaExtras>;
}

/** A key range read in the wire format, batch by batch (KindDriver.streamWire). */
export interface WireStream {
  /** Up to `max` whole rows, or null at the end of the range. */
  next(max: number): Promise<WireRows | null>;
  /** Stops reading (a stream left part-way drops its connection). */
  close(): Promise<void>;
}

/** A key range read by one streamed query, batch by batch (KindDriver.streamRows). */
export interface RowStream {
  /** Up to `max` rows, or null at the end of the range. */
  next(max: number): Promise<SqlResult | null>;
  /** Stops reading (a stream left part-way drops its connection). */
  close(): Promise<void>;
}

/** Loads the driver module of a kind only when a route uses it. */
export async function loadKind(kind: string): Promise<KindDriver> {
  const entry = kindEntry(kind);
  if (!entry) throw new Error(`no SQL driver for ${kind}`);
  return entry.load();
}
