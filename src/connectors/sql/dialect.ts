import { standardAlter, type AlterColumn } from './write/alter-column.js';
import type { ColumnInfo, KeyColumn, LogicalType, SqlConnection, SqlKind, TableInfo } from './types.js';
import type { PendingPosition } from './position/sink-position.js';
import { Binder } from './values/bind.js';
import { splitTableName } from './identifiers.js';
import { keysetCompare } from './position/keyset-compare.js';
import type { TransactionListing } from './position/transaction-watch.js';

/**
 * SQL that differs between kinds. The base class holds the common (mostly ANSI) forms; each kind
 * overrides only what it does differently.
 */
export interface UpsertOptions {
  fixed?: string[] | undefined;
  target?: string | undefined;
  looseKeys?: string[] | undefined;
}

export abstract class Dialect {
  abstract readonly kind: SqlKind;
  abstract readonly maxParams: number;
  abstract readonly maxIdentLength: number;
  /** Hidden row position used to page tables without a primary key, if the kind has one. */
  readonly rowPosition: string | undefined = undefined;
  readonly begin: string = 'BEGIN';
  /** Starts a transaction that will write (SQLite takes the write lock up front). */
  readonly beginWrite: string = 'BEGIN';
  readonly skipLocked: string = ' FOR UPDATE SKIP LOCKED';
  /** Table hint of locking reads that skip locked rows (SQL Server's WITH (UPDLOCK, READPAST)). */
  readonly lockHint: string = '';
  /** Whether locking reads can skip rows other transactions hold. */
  readonly canSkipLocked: boolean = true;
  /** Converts payload fields into this kind's column values, exactly or not at all (columns=auto). */
  readonly binder: Binder = new Binder();

  abstract quote(ident: string): string;
  abstract param(index: number): string;
  abstract introspect(conn: SqlConnection, table: string): Promise<TableInfo>;
  abstract createQueueTable(table: string): string[];
  /** Statements that create the checkpoint table if missing. */
  abstract createCheckpointTable(table: string): string[];
  /** Upsert of (cursor_id, last_value) into the checkpoint table, with params 1 and 2. */
  abstract upsertCheckpoint(table: string): string;
  /** Statements that create a sink's position table if missing: (route PK, last_position, seq, updated_at), see sink-position.ts. */
  abstract createPositionTable(table: string): string[];
  /** SQL expression for "now + seconds" comparable with the queue's locked_until column. */
  abstract leaseUntil(seconds: number): string;
  abstract readonly now: string;

  /** Validated and quoted table name, `schema.table` allowed. */
  table(name: string): string {
    return splitTableName(name, this.maxIdentLength)
      .map((p) => this.quote(p))
      .join('.');
  }

  /** The last part of a possibly qualified table name. */
  baseName(name: string): string {
    return name.split('.').pop()!;
  }

  /** Schema part of a qualified name, if any. */
  schemaOf(name: string): string | undefined {
    const parts = name.split('.');
    return parts.length === 2 ? parts[0] : undefined;
  }

  /** The select list of a table read: `*`, or conversions where the driver would lose exactness. */
  selectList(_info: TableInfo): string {
    return '*';
  }

  /** Said between an INSERT's column list and its rows, so that values given for identity columns are written as given (as COPY does). */
  readonly insertOverriding: string = '';

  /** `INSERT … VALUES (…), (…)`, or an upsert of `keys` updating `update` columns (`fixed`: see upsertClause). */
  insertRows(table: string, cols: string[], tuples: string[], keys?: string[], update?: string[], fixed?: string[], looseKeys?: string[]): string {
    const head = `INSERT INTO ${table} (${cols.map((c) => this.quote(c)).join(', ')}) ${this.insertOverriding}VALUES ${tuples.join(',')}`;
    return keys ? head + this.upsertClause(keys, update ?? [], { fixed, target: table, looseKeys }) : head;
  }

  /** ALTER TABLE for one column change of a mirror bridge keeps in step; undefined where the kind cannot make it. */
  alterColumn(table: string, c: AlterColumn): string | undefined {
    return standardAlter(this, table, c);
  }

  /** A statement run first in the DDL transaction so that two processes create a table one after the other. */
  ddlLock(_name: string): string | undefined {
    return undefined;
  }

  /** Whether `UPDATE … RETURNING` exists (a lease is then one statement). */
  readonly updateReturning: boolean = false;

  limit(n: number): string {
    return ` LIMIT ${n}`;
  }

  /**
   * Kinds that send a batch's load, its position and COMMIT in one round trip (Database.atomicLoad):
   * the position's statement with its values inlined, failing when its compare-and-set does; and
   * that failure as PositionMoved (undefined for any other error).
   */
  inlinePosition?: (p: PendingPosition) => string;
  positionMoved?: (e: unknown, p: PendingPosition) => Error | undefined;
  /** What tells a table from one of the same name made again after a drop (PostgreSQL's oid…): a sink's positions are kept per table. */
  tableIdentity?: (conn: SqlConnection, table: string) => Promise<string | undefined>;

  /** A query that returns one row when the table has any. */
  anyRow(table: string): string {
    return `SELECT 1 FROM ${this.table(table)} LIMIT 1`;
  }

  /**
   * Comparison value for a cursor position. Integers are inlined as checked literals (exact, no
   * driver conversion through doubles); other values are bound.
   */
  cursorValue(type: LogicalType, value: string, params: unknown[]): string {
    if ((type === 'int' || type === 'bigint') && /^-?\d+$/.test(value)) return value;
    params.push(value);
    return this.param(params.length);
  }

  /** `(a, b) > (x, y)` written out as `a > x OR (a = x AND b > y)`: for kinds without row values or that plan it badly. */
  readonly expandRowComparison: boolean = false;

  /** `WHERE` condition for rows after `values` in the order of `cols` (keyset paging). */
  keysetAfter(cols: ColumnInfo[], values: string[], params: unknown[]): string {
    return keysetCompare(this, cols, values, params, '>');
  }

  /** `WHERE` condition for rows at or before `values` (the upper end of a keyset range, usable by an index). */
  keysetAtMost(cols: ColumnInfo[], values: string[], params: unknown[]): string {
    return keysetCompare(this, cols, values, params, '<=');
  }

  /**
   * `ON CONFLICT … DO UPDATE` (or the kind's equivalent) updating `update` columns for rows whose
   * `keys` exist, in `o.target` (the table as the statement names it). `o.fixed`: those of `update`
   * the database refuses to update (ColumnInfo.fixedIdentity). `o.looseKeys`: the key columns
   * whose type or collation compares different values equal (ColumnInfo.looseEquality, moved-key.ts).
   */
  abstract upsertClause(keys: string[], update: string[], o?: UpsertOptions): string;

  /** A placeholder with the cast the kind needs to bind text into `col` exactly. */
  castParam(placeholder: string, _col: ColumnInfo): string {
    return placeholder;
  }

  /**
   * Base tables of `schema` (the connection's default schema when undefined), by name: what
   * `table=*` copies. Views, partitions of a partitioned table and bridge's own checkpoint tables
   * are not among them.
   */
  abstract listTables(conn: SqlConnection, schema: string | undefined): Promise<string[]>;

  /** The lower bound of a key range (`key_range=lo..`), ANDed with each page's own `key > last`. */
  keyAtLeast(col: string, lo: string): string {
    return `${col} >= ${lo}`;
  }

  /** A deterministic integer hash of a row's key values (`--partition`): any spread will do, the same every time. */
  abstract keyHash(cols: string[]): string;

  /** Rows in a table, cheaply where the kind keeps statistics (exact count otherwise). */
  async estimateRows(conn: SqlConnection, table: string): Promise<number> {
    const r = await conn.query(`SELECT COUNT(*) FROM ${this.table(table)}`);
    return Number(r.rows[0]?.[0] ?? 0);
  }

  /** Placeholder list `(p1),(p2),...` helpers live in the sink; this is one row of n params. */
  tuple(start: number, n: number): string {
    let s = '(';
    for (let i = 0; i < n; i++) s += (i ? ',' : '') + this.param(start + i);
    return s + ')';
  }

  /**
   * The column definition (type, and constraints of its own) that holds values of a column of
   * another table, of any kind, exactly where this kind can: typed table creation and the
   * round-trip suite use the same mapping.
   */
  abstract columnType(name: string, src: ColumnInfo, srcUntyped: boolean, inKey?: boolean): string;

  /** The column a `columnType()` definition creates (in a table with `options`), as introspection would describe it (for the dry run). */
  abstract describeType(name: string, definition: string, options?: string[]): ColumnInfo;
  /** One key's column types (primary key or unique set) resized to the kind's key size limit; a config error naming the table when they cannot fit. */
  fitKey?(table: string, key: KeyColumn[]): string[];
  /** The clause after a column's type that makes the database compute it from `expr`, where the kind has one. */
  generatedColumn?(expr: string, stored: boolean): string;

  /** `CREATE TABLE` of the given column definitions and constraints (and table options, TableInfo.options), doing nothing if the table exists. */
  createTable(table: string, defs: string[], options: string[] = []): string[] {
    return [`CREATE TABLE IF NOT EXISTS ${this.table(table)} (${defs.join(', ')})${options.length ? ` ${options.join(', ')}` : ''}`];
  }

  /** Whether other sessions' open transactions can be listed (cursor paging's frontier waits for them). */
  readonly tracksTransactions: boolean = false;
  /** Least time between two listings (a server may cache the list and refresh it only when not read for a while). */
  readonly transactionListIntervalMs: number = 0;

  /**
   * Names of the transactions open right now that could still commit rows of this database (and
   * whatever else a kind must wait for), read on one connection; undefined when the list could not
   * be read fresh this time. `clock`: the cursor is a time a statement takes when it starts (NOW()),
   * which on some kinds precedes the transaction's first appearance. `own`: bridge's own sessions
   * (checkpoint writes), not waited for.
   */
  async openTransactions(_conn: SqlConnection, _clock = false, _own: string[] = []): Promise<TransactionListing | undefined> {
    return undefined;
  }

  /** Whether `member`, noted at `notedAt` (ms), is still open in `now`: the name to keep waiting on, or undefined. */
  stillOpen(member: string, now: TransactionListing, _notedAt: number): string | undefined {
    return now.open.has(member) || now.open.has(`~${member}`) ? member : undefined;
  }

  /** For a source column of this same kind, the column type to create when the kind's own type serves better than the mapping (see Dialect.columnType). */
  sameKindType(_src: ColumnInfo, _untyped: boolean, _inKey: boolean): string | undefined {
    return undefined;
  }

  /** Why this connection cannot see other sessions' transactions (a missing privilege), if it cannot. */
  async transactionBlindness(_conn: SqlConnection): Promise<string | undefined> {
    return undefined;
  }

  /** Per column, how many values of each storage class it holds (kinds that do not enforce types). */
  async profileColumns(_conn: SqlConnection, _table: string, _cols: ColumnInfo[]): Promise<(Record<string, number | string> | undefined)[] | undefined> {
    return undefined;
  }

  /** Locking the checkpoint row for a compare-and-set: a table hint after its name, a clause at the end. */
  get rowLockHint(): string {
    return '';
  }

  get rowLockSuffix(): string {
    return this.canSkipLocked ? ' FOR UPDATE' : '';
  }

  /**
   * Destructive reads delete row by row (MySQL/MariaDB: a second SKIP LOCKED reader can block a
   * range DELETE … IN (…) of the first).
   */
  readonly deletesByPointLookups: boolean = false;

  /** Result columns carry exact types (PostgreSQL); otherwise they are typed by introspection. */
  readonly exactResultTypes: boolean = false;

  /** A token's JSON number for the driver: a JS number when it is exact, else its text. */
  tokenNumber(raw: string): unknown {
    const n = Number(raw);
    return Number.isSafeInteger(n) || (!/^-?\d+$/.test(raw) && String(n) === raw) ? n : raw;
  }

  tokenBool(v: boolean): unknown {
    return v;
  }

  columnNames(cols: ColumnInfo[]): string {
    return cols.map((c) => this.quote(c.name)).join(', ');
  }
}
