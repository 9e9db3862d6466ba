import { MssqlBinder } from './bind.js';
import { Dialect } from '../sql/dialect.js';
import type { AlterColumn } from '../sql/write/alter-column.js';
import { MISSING_TABLE, withUniques, type ColumnInfo, type LogicalType, type SqlConnection, type TableInfo } from '../sql/types.js';
import { mssqlType, selectExpression } from './types.js';
import { fitName } from '../sql/identifiers.js';

/** A Unicode string literal. */
const nstr = (s: string): string => `N'${s.replace(/'/g, "''")}'`;

/** SQL Server (kind E): bracket quoting, @pN parameters, OFFSET/FETCH, table hints, MERGE. */
export class SqlServerDialect extends Dialect {
  /** No FOR UPDATE: the lock is a table hint. */
  override get rowLockHint(): string {
    return ' WITH (UPDLOCK, HOLDLOCK)';
  }

  override get rowLockSuffix(): string {
    return '';
  }

  override readonly binder = new MssqlBinder();
  readonly kind = 'sqlserver' as const;

  describeType(name: string, definition: string): ColumnInfo {
    return { name, type: mssqlType(/^[a-z0-9]+/i.exec(definition)![0]), dbType: definition, nullable: true };
  }

  /** SQL Server type that keeps the values of a column of any kind (see Dialect.columnType). */
  columnType(_name: string, src: ColumnInfo, srcUntyped: boolean, inKey = false): string {
    const frac = Math.min(src.fraction ?? 7, 7);
    switch (src.type) {
      case 'bool':
        return 'bit';
      case 'int':
      case 'bigint':
        if (src.min !== undefined && src.max !== undefined && BigInt(src.min) >= -2147483648n && BigInt(src.max) <= 2147483647n) return 'int';
        return src.max !== undefined && BigInt(src.max) > 9223372036854775807n ? 'decimal(20,0)' : 'bigint';
      case 'decimal':
        return src.precision !== undefined && !srcUntyped && src.precision <= 38 ? `decimal(${src.precision},${src.scale ?? 0})` : 'decimal(38,10)';
      case 'float':
        return src.floatBits === 24 ? 'real' : 'float';
      case 'bytes':
        return 'varbinary(max)';
      case 'date':
        return 'date';
      case 'time':
        return `time(${frac})`;
      case 'timestamp':
        return `datetime2(${frac})`;
      case 'timestamptz':
        return `datetimeoffset(${frac})`;
      case 'uuid':
        return 'uniqueidentifier';
      default:
        return src.maxLength !== undefined && src.maxLength <= 4000 && !srcUntyped ? `nvarchar(${src.maxLength})` : inKey ? 'nvarchar(450)' : 'nvarchar(max)';
    }
  }
  /** SQL Server accepts at most 2,100 parameters per request. */
  readonly maxParams = 2000;
  readonly maxIdentLength = 128;
  override readonly begin = 'BEGIN TRANSACTION';
  override readonly beginWrite = 'BEGIN TRANSACTION';
  override readonly skipLocked = '';
  override readonly lockHint = ' WITH (UPDLOCK, READPAST, ROWLOCK)';
  readonly now = 'SYSUTCDATETIME()';
  private readonly dataTypes = new Map<string, string>();

  quote(ident: string): string {
    return `[${ident.replace(/]/g, ']]')}]`;
  }

  param(index: number): string {
    return `@p${index}`;
  }

  override anyRow(table: string): string {
    return `SELECT TOP 1 1 FROM ${this.table(table)}`;
  }

  override limit(n: number): string {
    // Every paging query here has an ORDER BY, which OFFSET/FETCH requires.
    return ` OFFSET 0 ROWS FETCH NEXT ${n} ROWS ONLY`;
  }

  leaseUntil(seconds: number): string {
    return `DATEADD(second, ${Math.trunc(seconds)}, SYSUTCDATETIME())`;
  }

  /** No row-value comparison in T-SQL. */
  override readonly expandRowComparison = true;

  override cursorValue(type: LogicalType, value: string, params: unknown[]): string {
    if (type === 'decimal') {
      params.push(value);
      return `CAST(${this.param(params.length)} AS decimal(38,10))`;
    }
    return super.cursorValue(type, value, params);
  }

  override selectList(info: TableInfo): string {
    return info.columns.map((c) => selectExpression(this.quote(c.name), this.dataTypes.get(c.name) ?? c.dbType.replace(/\(.*$/, ''))).join(', ');
  }

  async introspect(conn: SqlConnection, table: string): Promise<TableInfo> {
    const schema = this.schemaOf(table) ?? 'dbo';
    const name = this.baseName(table);
    const cols = await conn.query(
      `SELECT COLUMN_NAME, DATA_TYPE, IS_NULLABLE, NUMERIC_PRECISION, NUMERIC_SCALE, CHARACTER_MAXIMUM_LENGTH, DATETIME_PRECISION
         FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = @p1 AND TABLE_NAME = @p2 ORDER BY ORDINAL_POSITION`,
      [schema, name],
    );
    if (cols.rows.length === 0) return MISSING_TABLE;
    const columns: ColumnInfo[] = cols.rows.map(([n, dt, nullable, prec, scale, len, dtp]) => {
      const dataType = String(dt).toLowerCase();
      this.dataTypes.set(String(n), dataType);
      const dbType =
        dataType === 'decimal' || dataType === 'numeric'
          ? `${dataType}(${prec},${scale})`
          : len !== null && len !== undefined
            ? `${dataType}(${Number(len) === -1 ? 'max' : len})`
            : dtp !== null && dtp !== undefined && /time/.test(dataType)
              ? `${dataType}(${dtp})`
              : dataType;
      return { name: String(n), type: mssqlType(dataType), dbType, nullable: nullable === 'YES', ...(scale !== null && scale !== undefined ? { scale: Number(scale) } : {}) };
    });
    const idx = await conn.query(
      `SELECT i.name, c.name, i.is_primary_key FROM sys.indexes i
         JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
         JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
        WHERE i.object_id = OBJECT_ID(@p1) AND (i.is_unique = 1 OR i.is_primary_key = 1) AND ic.is_included_column = 0
        ORDER BY i.index_id, ic.key_ordinal`,
      [`${this.quote(schema)}.${this.quote(name)}`],
    );
    const sets = new Map<string, string[]>();
    const primaryKey: string[] = [];
    for (const [index, col, pk] of idx.rows) {
      sets.set(String(index), [...(sets.get(String(index)) ?? []), String(col)]);
      if (pk === true || pk === 1) primaryKey.push(String(col));
    }
    return withUniques({ exists: true, columns, primaryKey, uniqueSets: [...sets.values()] });
  }

  override tableIdentity = async (conn: SqlConnection, table: string): Promise<string | undefined> => {
    const v = (await conn.query('SELECT OBJECT_ID(@p1)', [this.objectName(table)])).rows[0]?.[0];
    return v === null || v === undefined ? undefined : `object ${String(v)}`;
  };

  /** The table as OBJECT_ID reads it: each part bracketed (a name may hold a space, a dot or a quote). */
  private objectName(table: string): string {
    return `${this.quote(this.schemaOf(table) ?? 'dbo')}.${this.quote(this.baseName(table))}`;
  }

  override createTable(table: string, defs: string[]): string[] {
    return [`IF OBJECT_ID(${nstr(this.objectName(table))}, N'U') IS NULL CREATE TABLE ${this.table(table)} (${defs.join(', ')})`];
  }

  createQueueTable(table: string): string[] {
    const t = this.table(table);
    const o = this.objectName(table);
    const idx = fitName(`${this.baseName(table)}_locked_until_idx`, this.maxIdentLength);
    return [
      `IF OBJECT_ID(${nstr(o)}, N'U') IS NULL CREATE TABLE ${t} (id BIGINT IDENTITY(1,1) PRIMARY KEY, payload VARBINARY(MAX) NOT NULL, locked_until DATETIME2 NULL, created_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME())`,
      `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = ${nstr(idx)} AND object_id = OBJECT_ID(${nstr(o)})) CREATE INDEX ${this.quote(idx)} ON ${t} (locked_until)`,
    ];
  }

  createCheckpointTable(table: string): string[] {
    return [
      `IF OBJECT_ID(${nstr(this.objectName(table))}, N'U') IS NULL CREATE TABLE ${this.table(table)} (cursor_id NVARCHAR(255) NOT NULL PRIMARY KEY, last_value NVARCHAR(MAX) NOT NULL, updated_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME())`,
    ];
  }

  createPositionTable(table: string): string[] {
    return [
      `IF OBJECT_ID(${nstr(this.objectName(table))}, N'U') IS NULL CREATE TABLE ${this.table(table)} (route NVARCHAR(255) NOT NULL PRIMARY KEY, last_position NVARCHAR(MAX) NOT NULL, seq BIGINT NOT NULL, updated_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME())`,
    ];
  }

  upsertCheckpoint(table: string): string {
    return `MERGE INTO ${this.table(table)} WITH (HOLDLOCK) AS t USING (SELECT @p1 AS cursor_id, @p2 AS last_value) AS s ON t.cursor_id = s.cursor_id
            WHEN MATCHED THEN UPDATE SET last_value = s.last_value, updated_at = SYSUTCDATETIME()
            WHEN NOT MATCHED THEN INSERT (cursor_id, last_value) VALUES (s.cursor_id, s.last_value);`;
  }

  upsertClause(): string {
    throw new Error('SQL Server upserts are MERGE statements (insertRows)');
  }

  /** Upserts as MERGE … WITH (HOLDLOCK), safe when two writers race on the same key. */
  override insertRows(table: string, cols: string[], tuples: string[], keys?: string[], update?: string[]): string {
    const q = cols.map((c) => this.quote(c)).join(', ');
    if (!keys) return `INSERT INTO ${table} (${q}) VALUES ${tuples.join(',')}`;
    const on = keys.map((k) => `t.${this.quote(k)} = s.${this.quote(k)}`).join(' AND ');
    const set = (update ?? []).map((c) => `${this.quote(c)} = s.${this.quote(c)}`).join(', ');
    return `MERGE INTO ${table} WITH (HOLDLOCK) AS t USING (VALUES ${tuples.join(',')}) AS s (${q}) ON ${on}${set ? ` WHEN MATCHED THEN UPDATE SET ${set}` : ''} WHEN NOT MATCHED THEN INSERT (${q}) VALUES (${cols.map((c) => `s.${this.quote(c)}`).join(', ')});`;
  }

  override ddlLock(name: string): string {
    return `EXEC sp_getapplock @Resource = ${nstr(`bridge:${name}`)}, @LockMode = 'Exclusive', @LockOwner = 'Transaction'`;
  }

  async listTables(conn: SqlConnection, schema: string | undefined): Promise<string[]> {
    const r = await conn.query(`SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA = COALESCE(@p1, SCHEMA_NAME()) ORDER BY TABLE_NAME`, [schema ?? null]);
    return r.rows.map((x) => String(x[0]));
  }

  keyHash(cols: string[]): string {
    return `CAST(CHECKSUM(CONCAT_WS(',', ${cols.join(', ')})) AS bigint)`;
  }

  override async estimateRows(conn: SqlConnection, table: string): Promise<number> {
    const r = await conn.query(`SELECT SUM(p.rows) FROM sys.partitions p WHERE p.object_id = OBJECT_ID(@p1) AND p.index_id IN (0, 1)`, [this.objectName(table)]);
    const n = r.rows[0]?.[0];
    return n === null || n === undefined ? super.estimateRows(conn, table) : Number(n);
  }

  override alterColumn(table: string, c: AlterColumn): string | undefined {
    const t = this.table(table);
    const lit = nstr;
    switch (c.op) {
      case 'add':
        return `ALTER TABLE ${t} ADD ${this.quote(c.column)} ${c.type}`;
      case 'drop':
        return `ALTER TABLE ${t} DROP COLUMN ${this.quote(c.column)}`;
      case 'rename':
        return `EXEC sp_rename ${lit(`${t}.${this.quote(c.from)}`)}, ${lit(c.to)}, 'COLUMN'`;
      case 'type':
        return `ALTER TABLE ${t} ALTER COLUMN ${this.quote(c.column)} ${c.type}${c.nullable ? ' NULL' : ' NOT NULL'}`;
    }
  }
}
