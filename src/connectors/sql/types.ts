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
}

export interface TableInfo {
  exists: boolean;
  columns: ColumnInfo[];
  primaryKey: string[];
  /** Columns that are alone in a unique index or the primary key. */
  uniqueColumns: Set<string>;
  /** Column lists of the primary key and of every unique index. */
  uniqueSets: string[][];
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
  query(sql: string, params?: readonly unknown[]): Promise<SqlResult>;
}

export type SqlKind = 'postgres' | 'mysql' | 'mariadb' | 'sqlite' | 'sqlserver';

export const INTEGER_TYPES: ReadonlySet<LogicalType> = new Set(['int', 'bigint']);

/** True when the table looks like what auto_create_table makes: a work queue. */
export function isQueueShape(t: TableInfo): boolean {
  const names = new Set(t.columns.map((c) => c.name));
  return names.has('id') && names.has('payload') && names.has('locked_until');
}
