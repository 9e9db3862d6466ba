import { SqliteBinder } from './bind.js';
import { Dialect, type UpsertOptions } from '../sql/dialect.js';
import { MOVED_SEPARATOR } from '../sql/write/moved-key.js';
import { standardAlter, type AlterColumn } from '../sql/write/alter-column.js';
import { MISSING_TABLE, withUniques, type ColumnInfo, type SqlConnection, type TableInfo } from '../sql/types.js';
import { sqliteType } from './types.js';

/** Columns a `CHECK (json_valid(col))` marks as JSON documents kept as text (what bridge creates for JSON). */
function jsonCheckedColumns(createSql: string): Set<string> {
  const out = new Set<string>();
  for (const m of createSql.matchAll(/json_valid\s*\(\s*(?:"((?:[^"]|"")+)"|`([^`]+)`|\[([^\]]+)\]|(\w+))\s*\)/gi)) {
    out.add((m[1]?.replace(/""/g, '"') ?? m[2] ?? m[3] ?? m[4]!).toLowerCase());
  }
  return out;
}

/**
 * `STRICT` (declared types enforced, ANY kept as given) and `WITHOUT ROWID` of a table, from
 * pragma table_list (SQLite 3.37+; older libraries have neither, so nothing to keep).
 */
async function tableOptions(conn: SqlConnection, schema: string | undefined, name: string): Promise<string[]> {
  const r = await conn.query(`SELECT strict, wr FROM pragma_table_list WHERE schema = ? AND name = ?`, [schema ?? 'main', name]).catch(() => undefined);
  const [strict, wr] = r?.rows[0] ?? [];
  return [...(Number(strict) === 1 ? ['STRICT'] : []), ...(Number(wr) === 1 ? ['WITHOUT ROWID'] : [])];
}

const NOW = "strftime('%Y-%m-%d %H:%M:%f','now')";

export class SqliteDialect extends Dialect {
  /** Integers as BigInt (INTEGER storage class, 64 bits), other numbers as REAL. */
  override tokenNumber(raw: string): unknown {
    return /^-?\d+$/.test(raw) ? BigInt(raw) : Number(raw);
  }

  /** SQLite has no boolean: 1 and 0. */
  override tokenBool(v: boolean): unknown {
    return v ? 1 : 0;
  }

  override readonly binder = new SqliteBinder();
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

  /**
   * SQLite seeks by one lower bound of a rowid: given the range's and the page's, it took the
   * range's and scanned every row before the page (a 1M-row copy in 2 parts: 20 s instead of 6).
   * `+` keeps the range's bound out of the index: pages seek by their own.
   */
  override keyAtLeast(col: string, lo: string): string {
    return `+${col} >= ${lo}`;
  }

  /** bridge_key_hash is registered on every connection (driver.ts): SQLite has no hash function of its own. */
  keyHash(cols: string[]): string {
    return `bridge_key_hash(${cols.map((c) => `CAST(${c} AS TEXT)`).join(" || ',' || ")})`;
  }

  async listTables(conn: SqlConnection, schema: string | undefined): Promise<string[]> {
    const prefix = schema ? `${this.quote(schema)}.` : '';
    const r = await conn.query(`SELECT name FROM ${prefix}sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`);
    return r.rows.map((x) => String(x[0]));
  }

  /** The table's root page: a table made again after a drop usually gets another (SQLite has no table id). */
  override tableIdentity = async (conn: SqlConnection, table: string): Promise<string | undefined> => {
    const schema = this.schemaOf(table);
    const r = await conn.query(`SELECT rootpage FROM ${schema ? `${this.quote(schema)}.` : ''}sqlite_master WHERE type = 'table' AND name = ?`, [this.baseName(table)]);
    return r.rows.length ? `rootpage ${String(r.rows[0]![0])}` : undefined;
  };

  async introspect(conn: SqlConnection, table: string): Promise<TableInfo> {
    const schema = this.schemaOf(table);
    const prefix = schema ? `${this.quote(schema)}.` : '';
    const name = this.quote(this.baseName(table));
    // table_xinfo lists generated columns too (hidden 2: virtual, 3: stored; 1 is a virtual table's hidden column).
    const rows = (await conn.query(`PRAGMA ${prefix}table_xinfo(${name})`)).rows.filter((r) => Number(r[6]) !== 1);
    if (rows.length === 0) return MISSING_TABLE;
    const pk: [number, string][] = [];
    const ddl = await conn.query(`SELECT sql FROM ${prefix}sqlite_master WHERE type = 'table' AND name = ?`, [this.baseName(table)]);
    const jsonChecked = jsonCheckedColumns(String(ddl.rows[0]?.[0] ?? ''));
    const options = await tableOptions(conn, schema, this.baseName(table));
    const columns: ColumnInfo[] = rows.map(([, n, declared, notnull, , pkPos, hidden]) => {
      if (Number(pkPos) > 0) pk.push([Number(pkPos), String(n)]);
      const t = sqliteType(declared as string);
      // In a STRICT table ANY keeps each value as given (no affinity), where elsewhere it is NUMERIC.
      if (options.includes('STRICT') && String(declared).toUpperCase() === 'ANY') t.affinity = 'blob';
      return {
        name: String(n),
        // Undeclared columns take any storage class (affinity blob): rendered by each value's own type.
        type: jsonChecked.has(String(n).toLowerCase()) ? 'json' : (t.type ?? 'text'),
        dbType: String(declared ?? ''),
        nullable: Number(notnull) === 0,
        affinity: t.affinity,
        ...(t.scale === undefined ? {} : { scale: t.scale }),
        // The expression is not kept: SQLite says where a column is computed, not from what.
        ...(Number(hidden) >= 2 ? { generated: { stored: Number(hidden) === 3 } } : {}),
      };
    });
    const primaryKey = pk.sort((a, b) => a[0] - b[0]).map(([, n]) => n);
    const uniqueSets: string[][] = primaryKey.length ? [primaryKey] : [];
    const indexes = await conn.query(`PRAGMA ${prefix}index_list(${name})`);
    for (const row of indexes.rows) {
      // unique = 1 and not partial
      if (Number(row[2]) !== 1 || Number(row[4]) === 1) continue;
      // index_xinfo: its key columns (key = 1) and the collation each compares by.
      const cols = (await conn.query(`PRAGMA ${prefix}index_xinfo(${this.quote(String(row[1]))})`)).rows.filter((c) => Number(c[5]) === 1);
      uniqueSets.push(cols.map((c) => String(c[2])));
      for (const c of cols) if (c[2] !== null && String(c[4]).toUpperCase() !== 'BINARY') Object.assign(columns.find((x) => x.name === String(c[2])) ?? {}, { looseEquality: true });
    }
    return withUniques({ exists: true, columns, primaryKey, uniqueSets, ...(options.length ? { options } : {}) });
  }

  /**
   * `typeof()` counts per column (SQLite keeps whatever class was inserted, whatever the declared
   * type), and the range of its integers (`integer_min`/`integer_max`), so the dry run says what
   * the data holds rather than what it could.
   */
  override async profileColumns(conn: SqlConnection, table: string, cols: ColumnInfo[]): Promise<Record<string, number | string>[]> {
    const out: Record<string, number | string>[] = [];
    for (const c of cols) {
      const q = this.quote(c.name);
      const r = await conn.query(`SELECT typeof(${q}), COUNT(*), MIN(${q}), MAX(${q}) FROM ${this.table(table)} GROUP BY 1`);
      const p: Record<string, number | string> = {};
      for (const [k, n, min, max] of r.rows) {
        p[String(k)] = Number(n);
        if (k === 'integer') Object.assign(p, { integer_min: String(min), integer_max: String(max) });
      }
      out.push(p);
    }
    return out;
  }

  /**
   * `looseKeys` (ColumnInfo.looseEquality): a NOCASE key matched 'A' for 'a' and wrote one over the
   * other, exit 0. The stored key must be the message's byte for byte, or json_extract's error on a
   * path that is none carries the two keys (movedKeyOf) and the message is refused.
   */
  override upsertClause(keys: string[], update: string[], o: UpsertOptions = {}): string {
    const k = keys.map((x) => this.quote(x)).join(', ');
    const loose = o.looseKeys ?? [];
    if (update.length === 0 && loose.length === 0) return ` ON CONFLICT (${k}) DO NOTHING`;
    // The stored row is named by the table's own name (an upsert's target takes no schema there).
    const t = /("(?:[^"]|"")*")$/.exec(o.target ?? '')?.[1] ?? o.target ?? '';
    const sep = `'${MOVED_SEPARATOR}'`;
    const guards = loose.map((c) => {
      const [stored, given] = [`${t}.${this.quote(c)}`, `excluded.${this.quote(c)}`];
      return `CASE WHEN ${stored} = ${given} COLLATE BINARY THEN 1 ELSE json_extract('{}', '${`bridge: ${c}`.replace(/'/g, "''")}' || ${sep} || substr(${stored}, 1, 24) || ${sep} || substr(${given}, 1, 24)) END`;
    });
    const assign = (update.length ? update : [keys[0]!]).map((c) => `${this.quote(c)} = excluded.${this.quote(c)}`).join(', ');
    return ` ON CONFLICT (${k}) DO UPDATE SET ${assign}${guards.length ? ` WHERE ${guards.join(' AND ')}` : ''}`;
  }

  describeType(name: string, definition: string, options: string[] = []): ColumnInfo {
    const declared = definition.replace(/\s*CHECK\s*\(.*$/i, '');
    const t = sqliteType(declared);
    if (options.includes('STRICT') && declared.toUpperCase() === 'ANY') t.affinity = 'blob';
    const json = /json_valid/i.test(definition);
    return { name, type: json ? 'json' : (t.type ?? 'text'), dbType: declared, nullable: true, affinity: t.affinity, ...(t.scale === undefined ? {} : { scale: t.scale }) };
  }

  /**
   * SQLite types by affinity: numbers that a REAL holds exactly keep a numeric type, wider
   * decimals are TEXT (exact digits), JSON is TEXT checked by json_valid (TEXT affinity keeps its
   * spelling; bridge reads such columns back as JSON).
   */
  columnType(name: string, src: ColumnInfo, srcUntyped: boolean): string {
    if (srcUntyped) return src.dbType;
    switch (src.type) {
      case 'bool':
        return 'BOOLEAN';
      case 'int':
      case 'bigint':
        return 'INTEGER';
      case 'decimal':
        return src.precision !== undefined && src.precision <= 15 ? `DECIMAL(${src.precision},${src.scale ?? 0})` : 'TEXT';
      case 'float':
        return 'REAL';
      case 'json':
      case 'array':
        return `TEXT CHECK (json_valid(${this.quote(name)}))`;
      case 'bytes':
        return 'BLOB';
      case 'date':
        return 'DATE';
      case 'time':
        return 'TIME';
      case 'timestamp':
        return 'DATETIME';
      case 'timestamptz':
        return 'TIMESTAMPTZ';
      default:
        return 'TEXT';
    }
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

  createPositionTable(table: string): string[] {
    return [`CREATE TABLE IF NOT EXISTS ${this.table(table)} (route TEXT PRIMARY KEY, last_position TEXT NOT NULL, seq INTEGER NOT NULL, updated_at TEXT NOT NULL DEFAULT (${NOW}))`];
  }

  upsertCheckpoint(table: string): string {
    return `INSERT INTO ${this.table(table)} (cursor_id, last_value, updated_at) VALUES (?, ?, ${NOW})
            ON CONFLICT (cursor_id) DO UPDATE SET last_value = excluded.last_value, updated_at = excluded.updated_at`;
  }

  /** SQLite cannot change a column's declared type (a table would have to be rebuilt): refused, the sink names the change. */
  override alterColumn(table: string, c: AlterColumn): string | undefined {
    return c.op === 'type' ? undefined : standardAlter(this, table, c);
  }
}
