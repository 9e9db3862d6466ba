import { Dialect } from '../sql/dialect.js';
import { MISSING_TABLE, withUniques, type ColumnInfo, type SqlConnection, type TableInfo } from '../sql/types.js';
import { sqliteType } from './types.js';

const NOW = "strftime('%Y-%m-%d %H:%M:%f','now')";

export class SqliteDialect extends Dialect {
  readonly kind = 'sqlite' as const;
  readonly maxParams = 32766;
  readonly maxIdentLength = 128;
  override readonly rowPosition = 'rowid';
  override readonly beginWrite = 'BEGIN IMMEDIATE';
  override readonly skipLocked = '';
  override readonly canSkipLocked = false;
  override readonly updateReturning = true;
  readonly now = NOW;

  quote(ident: string): string {
    return `"${ident.replace(/"/g, '""')}"`;
  }

  param(): string {
    return '?';
  }

  leaseUntil(seconds: number): string {
    return `strftime('%Y-%m-%d %H:%M:%f','now','+${Math.trunc(seconds)} seconds')`;
  }

  async introspect(conn: SqlConnection, table: string): Promise<TableInfo> {
    const schema = this.schemaOf(table);
    const prefix = schema ? `${this.quote(schema)}.` : '';
    const name = this.quote(this.baseName(table));
    const info = await conn.query(`PRAGMA ${prefix}table_info(${name})`);
    if (info.rows.length === 0) return MISSING_TABLE;
    const pk: [number, string][] = [];
    const columns: ColumnInfo[] = info.rows.map(([, n, declared, notnull, , pkPos]) => {
      if (Number(pkPos) > 0) pk.push([Number(pkPos), String(n)]);
      const t = sqliteType(declared as string);
      return {
        name: String(n),
        type: t.type ?? 'text',
        dbType: String(declared ?? ''),
        nullable: Number(notnull) === 0,
        ...(t.scale === undefined ? {} : { scale: t.scale }),
      };
    });
    const primaryKey = pk.sort((a, b) => a[0] - b[0]).map(([, n]) => n);
    const uniqueSets: string[][] = primaryKey.length ? [primaryKey] : [];
    const indexes = await conn.query(`PRAGMA ${prefix}index_list(${name})`);
    for (const row of indexes.rows) {
      // unique = 1 and not partial
      if (Number(row[2]) !== 1 || Number(row[4]) === 1) continue;
      const cols = await conn.query(`PRAGMA ${prefix}index_info(${this.quote(String(row[1]))})`);
      uniqueSets.push(cols.rows.map((c) => String(c[2])));
    }
    return withUniques({ exists: true, columns, primaryKey, uniqueSets });
  }

  override upsertClause(keys: string[], update: string[]): string {
    const k = keys.map((x) => this.quote(x)).join(', ');
    if (update.length === 0) return ` ON CONFLICT (${k}) DO NOTHING`;
    return ` ON CONFLICT (${k}) DO UPDATE SET ${update.map((c) => `${this.quote(c)} = excluded.${this.quote(c)}`).join(', ')}`;
  }

  createQueueTable(table: string): string[] {
    const t = this.table(table);
    return [
      `CREATE TABLE IF NOT EXISTS ${t} (id INTEGER PRIMARY KEY AUTOINCREMENT, payload BLOB NOT NULL, locked_until TEXT NULL, created_at TEXT NOT NULL DEFAULT (${NOW}))`,
      `CREATE INDEX IF NOT EXISTS ${this.quote(`${this.baseName(table)}_locked_until_idx`)} ON ${t} (locked_until)`,
    ];
  }

  createCheckpointTable(table: string): string[] {
    return [`CREATE TABLE IF NOT EXISTS ${this.table(table)} (cursor_id VARCHAR(255) PRIMARY KEY, last_value TEXT NOT NULL, updated_at TEXT NOT NULL DEFAULT (${NOW}))`];
  }

  upsertCheckpoint(table: string): string {
    return `INSERT INTO ${this.table(table)} (cursor_id, last_value, updated_at) VALUES (?, ?, ${NOW})
            ON CONFLICT (cursor_id) DO UPDATE SET last_value = excluded.last_value, updated_at = excluded.updated_at`;
  }
}
