/** The value families decisions §4 renders, whatever the database calls them. */
export type LogicalType =
  | 'bool'
  | 'int'
  | 'bigint'
  | 'decimal'
  | 'float'
  | 'text'
  | 'json'
  | 'bytes'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'uuid'
  | 'array';

export interface ColumnInfo {
  name: string;
  type: LogicalType;
  /** Element type of arrays. */
  elem?: LogicalType;
  /** The database's own type name, for plans and errors. */
  dbType: string;
  /** Declared scale of decimals (SQLite keeps decimals as REAL; the scale restores the digits). */
  scale?: number;
  nullable: boolean;
  /** PostgreSQL: built-in type to cast bound text to (`numeric`, `int4[]`), so inference never guesses. */
  castType?: string;
  /** Decimal digits in all (`decimal(p,s)`'s p); undefined = unbounded. */
  precision?: number;
  /** Integer range of int/bigint/bool-as-integer columns, as exact decimal text. */
  min?: string;
  max?: string;
  /** Floating point width: 24 (float4) or 53 bits (float8/double). */
  floatBits?: 24 | 53;
  /** Longest value the column keeps: characters for text, bytes for bytes, bits for BIT(n). */
  maxLength?: number;
  /** Longest text in bytes of its encoding, where the limit is in bytes (MySQL TEXT types). */
  maxBytes?: number;
  /** Fractional-second digits a time/timestamp column keeps. */
  fraction?: number;
  /**
   * CHAR(n): values are padded with spaces to n characters. `kept`: reads return the padding
   * (PostgreSQL); `trimmed`: reads return values without trailing spaces (MySQL/MariaDB).
   */
  padded?: 'kept' | 'trimmed';
  /** Allowed values of ENUM/SET columns. */
  labels?: string[];
  /** A kind-specific flavour the family alone does not tell (see ColumnVariant). */
  variant?: ColumnVariant;
  /** The type is built into the kind (PostgreSQL pg_catalog): a database of the same kind has it too. */
  kindBuiltin?: boolean;
  /** PostgreSQL: a domain (its NOT NULL and checks hold wherever the type goes, a temporary table too). */
  domain?: boolean;
  /**
   * The database computes the column (GENERATED ALWAYS AS): inserts leave it out. `expr` is the
   * expression in the kind's own SQL, where introspection can read it.
   */
  generated?: { expr?: string; stored: boolean };
  /** The database assigns it and refuses updates of it (PostgreSQL GENERATED ALWAYS AS IDENTITY): inserts give it, merges leave it. */
  fixedIdentity?: boolean;
  /**
   * Its type or collation compares some different values equal (PostgreSQL citext or a
   * nondeterministic collation, SQLite NOCASE/RTRIM in a unique key): a key= merge checks that the
   * row it matched holds the message's key byte for byte (moved-key.ts).
   */
  looseEquality?: boolean;
  /** SQLite's column affinity (the storage class values are converted to on insert). */
  affinity?: 'integer' | 'real' | 'numeric' | 'text' | 'blob';
}

/**
 * Flavours that change what a value means or how it must be bound: jsonb normalises documents,
 * YEAR takes numbers, SET holds comma lists, interval/duration are spans, `tinybool` is MySQL's
 * TINYINT(1) (a boolean that can hold -128..127), `bit` is MySQL BIT(n), `instant` is MySQL TIMESTAMP
 * (an instant kept in UTC, 1970–2038), `spatial` a geometry column: MySQL/MariaDB spatial types (bytes:
 * the SRID, then WKB) or PostGIS geometry/geography (text: hex EWKB), which takes MySQL's bytes.
 */
export type ColumnVariant = 'jsonb' | 'year' | 'set' | 'enum' | 'interval' | 'duration' | 'tinybool' | 'bit' | 'timetz' | 'instant' | 'spatial' | 'inet';

export interface TableInfo {
  exists: boolean;
  columns: ColumnInfo[];
  primaryKey: string[];
  /** Columns that are alone in a unique index or the primary key. */
  uniqueColumns: Set<string>;
  /** Column lists of the primary key and of every unique index. */
  uniqueSets: string[][];
  /**
   * Clauses after the column list of the kind's CREATE TABLE that change what the table keeps
   * (SQLite `STRICT`, `WITHOUT ROWID`): typed creation into a table of the same kind repeats them.
   */
  options?: string[];
}

/** A column of a key of a table typed creation makes: the type columnType gave it, and its source column. */
export interface KeyColumn {
  name: string;
  type: string;
  src: ColumnInfo;
  untyped: boolean;
}

/** Builds uniqueColumns from the unique column lists. */
export function withUniques(info: Omit<TableInfo, 'uniqueColumns'>): TableInfo {
  return { ...info, uniqueColumns: new Set(info.uniqueSets.filter((s) => s.length === 1).map((s) => s[0]!)) };
}

export const MISSING_TABLE: TableInfo = { exists: false, columns: [], primaryKey: [], uniqueColumns: new Set(), uniqueSets: [] };

/** A result as every driver returns it: rows as arrays, in the order of `fields`. */
export interface SqlResult {
  rows: unknown[][];
  fields: { name: string; type?: LogicalType; elem?: LogicalType; scale?: number }[];
  affected: number;
}

/** One database connection as the SQL layer uses it. */
export interface SqlConnection {
  /**
   * `reuse`: the statement will run again with other values, outside a transaction; a kind may keep
   * it prepared on the connection (PostgreSQL names it), others run it as usual.
   */
  query(sql: string, params?: readonly unknown[], reuse?: boolean): Promise<SqlResult>;
  /** The server's id of this session (PostgreSQL backend pid, MySQL thread id), where there is one. */
  readonly sessionId?: string;
}

/** A database kind's name (its key in src/connectors/kinds.ts). */
export type SqlKind = string;

export const INTEGER_TYPES: ReadonlySet<LogicalType> = new Set(['int', 'bigint']);

/** True when the table looks like what auto_create_table makes: a work queue. */
export function isQueueShape(t: TableInfo): boolean {
  const names = new Set(t.columns.map((c) => c.name));
  return names.has('id') && names.has('payload') && names.has('locked_until');
}
