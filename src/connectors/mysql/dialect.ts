import { Dialect } from '../sql/dialect.js';
import { MISSING_TABLE, withUniques, type ColumnInfo, type LogicalType, type SqlConnection, type TableInfo } from '../sql/types.js';

/** information_schema type → logical type. */
function mysqlType(dataType: string, columnType: string): LogicalType {
  switch (dataType) {
    case 'tinyint':
      return /^tinyint\(1\)/.test(columnType) ? 'bool' : 'int';
    case 'bit':
      return /^bit\(1\)/.test(columnType) ? 'bool' : 'bytes';
    case 'smallint':
    case 'mediumint':
    case 'int':
    case 'integer':
    case 'year':
      return 'int';
    case 'bigint':
      return 'bigint';
    case 'decimal':
    case 'numeric':
      return 'decimal';
    case 'float':
    case 'double':
    case 'real':
      return 'float';
    case 'json':
      return 'json';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return 'bytes';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'datetime':
    case 'timestamp':
      return 'timestamp';
    case 'uuid':
      return 'uuid';
    default:
      return 'text';
  }
}

export class MysqlDialect extends Dialect {
  readonly maxParams = 65535;
  readonly maxIdentLength = 64;
  override readonly begin = 'START TRANSACTION';
  override readonly beginWrite = 'START TRANSACTION';
  readonly now = 'CURRENT_TIMESTAMP(6)';

  constructor(readonly kind: 'mysql' | 'mariadb') {
    super();
  }

  quote(ident: string): string {
    return '`' + ident.replace(/`/g, '``') + '`';
  }

  param(): string {
    return '?';
  }

  /** Decimals compare as DECIMAL, not through the double MySQL would convert a string to. */
  override cursorValue(type: LogicalType, value: string, params: unknown[]): string {
    if (type !== 'decimal') return super.cursorValue(type, value, params);
    params.push(value);
    return 'CAST(? AS DECIMAL(65,30))';
  }

  /** MySQL's optimiser handles the expanded form of a row comparison better than `(a,b) > (?,?)`. */
  override readonly expandRowComparison = true;

  leaseUntil(seconds: number): string {
    return `CURRENT_TIMESTAMP(6) + INTERVAL ${Math.trunc(seconds)} SECOND`;
  }

  async introspect(conn: SqlConnection, table: string): Promise<TableInfo> {
    const schema = this.schemaOf(table) ?? null;
    const name = this.baseName(table);
    const cols = await conn.query(
      `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, NUMERIC_SCALE FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      [schema, name],
    );
    if (cols.rows.length === 0) return MISSING_TABLE;
    // MariaDB's JSON is LONGTEXT with a json_valid() check: find those columns to embed them as JSON.
    const jsonCols = new Set<string>();
    try {
      const checks = await conn.query(
        `SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?`,
        [schema, name],
      );
      for (const [clause] of checks.rows) {
        const m = /^json_valid\(`(.+)`\)$/i.exec(String(clause));
        if (m) jsonCols.add(m[1]!.replace(/``/g, '`'));
      }
    } catch {
      /* MySQL's CHECK_CONSTRAINTS has no TABLE_NAME; its JSON columns are typed anyway */
    }
    const columns: ColumnInfo[] = cols.rows.map(([n, dt, ct, nullable, scale]) => ({
      name: String(n),
      type: jsonCols.has(String(n)) ? 'json' : mysqlType(String(dt).toLowerCase(), String(ct).toLowerCase()),
      dbType: String(ct),
      nullable: nullable === 'YES',
      ...(scale === null || scale === undefined ? {} : { scale: Number(scale) }),
    }));
    const idx = await conn.query(
      `SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
      [schema, name],
    );
    const sets = new Map<string, string[]>();
    for (const [index, col] of idx.rows) sets.set(String(index), [...(sets.get(String(index)) ?? []), String(col)]);
    return withUniques({ exists: true, columns, primaryKey: sets.get('PRIMARY') ?? [], uniqueSets: [...sets.values()] });
  }

  override upsertClause(keys: string[], update: string[]): string {
    const set = update.length ? update : [keys[0]!];
    return ` ON DUPLICATE KEY UPDATE ${set.map((c) => `${this.quote(c)} = VALUES(${this.quote(c)})`).join(', ')}`;
  }

  /** information_schema.TABLES.TABLE_ROWS (InnoDB's estimate). */
  override async estimateRows(conn: SqlConnection, table: string): Promise<number> {
    const r = await conn.query('SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?', [this.schemaOf(table) ?? null, this.baseName(table)]);
    const n = r.rows[0]?.[0];
    return n === null || n === undefined ? super.estimateRows(conn, table) : Number(n);
  }

  createQueueTable(table: string): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS ${this.table(table)} (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, payload LONGBLOB NOT NULL,
        locked_until DATETIME(6) NULL, created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), INDEX locked_until_idx (locked_until))
        ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    ];
  }

  createCheckpointTable(table: string): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS ${this.table(table)} (cursor_id VARCHAR(255) NOT NULL PRIMARY KEY, last_value TEXT NOT NULL,
        updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    ];
  }

  upsertCheckpoint(table: string): string {
    return `INSERT INTO ${this.table(table)} (cursor_id, last_value, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP(6))
            ON DUPLICATE KEY UPDATE last_value = VALUES(last_value), updated_at = VALUES(updated_at)`;
  }
}
