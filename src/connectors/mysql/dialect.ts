import { MysqlBinder } from './bind.js';
import { Dialect } from '../sql/dialect.js';
import type { TransactionListing } from '../sql/position/transaction-watch.js';
import { noPadColumns, noPadType } from './no-pad.js';
import { standardAlter, type AlterColumn } from '../sql/write/alter-column.js';
import { fitKey } from './key-fit.js';
import type { ColumnInfo, KeyColumn, LogicalType, SqlConnection, TableInfo } from '../sql/types.js';
import { introspectTable } from './introspect.js';
import { MOVED_SEPARATOR, movedKeyParts, movedKeyReason } from '../sql/write/moved-key.js';
import { mysqlAttributes, mysqlColumnType, mysqlText, mysqlType } from './types.js';

/** Numbers the transaction listings, so each can find its own query in INNODB_TRX. */
let listings = 0;
/** Access denied; you need the PROCESS privilege. */
const ER_SPECIFIC_ACCESS_DENIED = 1227;

/** The reason in the error upsertClause's key guard raises, or undefined. */
export function movedKeyOf(message: string): string | undefined {
  const parts = movedKeyParts(/^Truncated incorrect DOUBLE value: '([\s\S]*)'$/.exec(message)?.[1] ?? '');
  return parts && movedKeyReason(...parts, 'equal by its collation, or matched by another unique key', 'make the key compare exactly (utf8mb4_nopad_bin), or key by the column that matched');
}

export class MysqlDialect extends Dialect {
  override readonly binder = new MysqlBinder();
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

  /**
   * FLOAT is read as DOUBLE: the text protocol prints only 6 significant digits of a FLOAT. Spatial
   * columns are read as their bytes: mysql2 turns them into objects that render as "[object Object]".
   */
  override selectList(info: TableInfo): string {
    if (!info.columns.some((c) => c.floatBits === 24 || c.variant === 'spatial')) return '*';
    return info.columns
      .map((c) => {
        const q = this.quote(c.name);
        if (c.floatBits === 24) return `CAST(${q} AS DOUBLE) AS ${q}`;
        return c.variant === 'spatial' ? `CAST(${q} AS BINARY) AS ${q}` : q;
      })
      .join(', ');
  }

  /** MySQL's optimiser handles the expanded form of a row comparison better than `(a,b) > (?,?)`. */
  override readonly expandRowComparison = true;

  leaseUntil(seconds: number): string {
    return `CURRENT_TIMESTAMP(6) + INTERVAL ${Math.trunc(seconds)} SECOND`;
  }

  introspect(conn: SqlConnection, table: string): Promise<TableInfo> {
    return introspectTable(conn, this.schemaOf(table) ?? null, this.baseName(table));
  }

  /**
   * ON DUPLICATE KEY UPDATE matches a row by any unique key, compared by its collation: 'a' found
   * 'A' (utf8mb4_general_ci), a message for id 2 found row 1 by its email, and each was written over
   * that row, exit 0. Each key column is first set to itself when the matched row's value is the
   * message's byte for byte, and otherwise to a text that is no number: strict mode's error then
   * carries the reason (movedKeyOf) and the message is refused.
   */
  override upsertClause(keys: string[], update: string[]): string {
    const guards = keys.map((k) => {
      const [stored, given] = [this.quote(k), `VALUES(${this.quote(k)})`];
      // The server quotes at most 128 characters of the text: the field and keys only, the sentence is movedKeyOf's.
      const shown = (v: string) => `LEFT(COALESCE(${v}, 'NULL'), 24)`;
      const sep = mysqlText(MOVED_SEPARATOR);
      const reason = `CONCAT(${mysqlText(`bridge: ${k.slice(0, 40)}`)}, ${sep}, ${shown(stored)}, ${sep}, ${shown(given)})`;
      return `${stored} = IF(BINARY ${stored} <=> BINARY ${given}, ${stored}, ${reason} + 0)`;
    });
    return ` ON DUPLICATE KEY UPDATE ${[...guards, ...update.map((c) => `${this.quote(c)} = VALUES(${this.quote(c)})`)].join(', ')}`;
  }

  override readonly deletesByPointLookups = true;
  override readonly tracksTransactions = true;
  /** INNODB_TRX is a cache InnoDB refreshes only when it was not read for 100 ms. */
  override readonly transactionListIntervalMs = 120;

  /**
   * What other sessions have open (needs PROCESS): InnoDB transactions (information_schema.INNODB_TRX)
   * and running statements (PROCESSLIST). A transaction that has written has a unique id
   * (`id:<trx_id>`); one that has not shows an id made from its memory address, so it is named by
   * session and start second (`s:<thread>:<started>`; a later transaction of that session in the same
   * second matches it too: slower, never wrong). A running statement (`q:<thread>:<query id>`) is
   * listed for time cursors (`clock`), because NOW() is taken when a statement starts, before InnoDB
   * starts its transaction: once the statement is over, the wait moves to the transaction its session
   * has open since that second (so such cursors wait about a second longer under steady writes). An
   * AUTO_INCREMENT value is drawn after InnoDB started the transaction: integer cursors need no more.
   *
   * INNODB_TRX is a cache refreshed only when nobody read it for 100 ms: this connection opens a
   * transaction and marks its query with a nonce, and the list counts only if that query is in it.
   * Whether PROCESS is granted is found out here, not by a read beforehand: that read would leave
   * the cache stale for the first listing, 100 ms of reading later.
   */
  override async openTransactions(conn: SqlConnection, clock = false, own: string[] = []): Promise<TransactionListing | undefined> {
    const nonce = `bridge-${process.pid}-${++listings}`;
    await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    try {
      const trx = await conn
        .query(`SELECT /* ${nonce} */ trx_id, trx_mysql_thread_id, trx_started, trx_query, trx_mysql_thread_id = CONNECTION_ID(), UNIX_TIMESTAMP(trx_started) FROM information_schema.INNODB_TRX`)
        .catch((e: unknown) => {
          if ((e as { errno?: number }).errno === ER_SPECIFIC_ACCESS_DENIED) return (e as Error).message;
          throw e;
        });
      if (typeof trx === 'string') return { open: new Set(), hidden: `it cannot read information_schema.INNODB_TRX (${trx}): GRANT PROCESS ON *.* TO <user>` };
      const open = new Set<string>();
      const sessions = new Map<string, { name: string; startedMs: number }[]>();
      const about = new Map<string, { session: string; startedMs: number }>();
      let fresh = false;
      for (const [id, thread, started, query, mine, epoch] of trx.rows) {
        if (Number(mine) === 1) {
          fresh ||= String(query ?? '').includes(nonce);
          continue;
        }
        if (own.includes(String(thread))) continue;
        const session = `s:${String(thread)}:${String(started)}`;
        // Transactions that have not written show id 0 (MariaDB) or an address-based id at or above 2^48 (MySQL).
        const wrote = BigInt(String(id)) > 0n && BigInt(String(id)) < 2n ** 48n;
        // Written nothing and running no statement: it holds no row and no NOW() taken for one (a row
        // it writes later takes its AUTO_INCREMENT value and NOW() then, above the read). An idle
        // read-only session left open by another client held the saved position back for good.
        if (!wrote && query === null) continue;
        const name = wrote ? `id:${String(id)}` : session;
        open.add(name);
        about.set(name, { session: `connection ${String(thread)}`, startedMs: Number(epoch) * 1000 });
        if (name !== session) open.add(`~${session}`);
        const list = sessions.get(String(thread)) ?? [];
        list.push({ name, startedMs: Number(epoch) * 1000 });
        sessions.set(String(thread), list);
      }
      if (!fresh) return undefined;
      if (!clock) return { open, sessions, about };
      const running = await conn.query(`SELECT ID, ${this.queryIdColumn} FROM information_schema.PROCESSLIST WHERE COMMAND IN ('Query', 'Execute') AND ID <> CONNECTION_ID()`);
      for (const [thread, query] of running.rows) if (!own.includes(String(thread))) open.add(`q:${String(thread)}:${String(query)}`);
      return { open, sessions, about };
    } finally {
      await conn.query('COMMIT');
    }
  }

  /** MariaDB numbers every statement (QUERY_ID); MySQL does not, so its statement text stands in. */
  private get queryIdColumn(): string {
    return this.kind === 'mariadb' ? 'QUERY_ID' : 'MD5(COALESCE(INFO, TIME))';
  }

  /** A statement that has ended hands its wait to the transaction its session has open since that second. */
  override stillOpen(member: string, now: TransactionListing, notedAt: number): string | undefined {
    if (!member.startsWith('q:')) return super.stillOpen(member, now, notedAt);
    if (now.open.has(member)) return member;
    const thread = member.split(':')[1]!;
    const since = Math.floor(notedAt / 1000) * 1000;
    return now.sessions?.get(thread)?.find((t) => t.startedMs >= since)?.name;
  }

  async listTables(conn: SqlConnection, schema: string | undefined): Promise<string[]> {
    const r = await conn.query(`SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`, [schema ?? null]);
    return r.rows.map((x) => String(x[0]));
  }

  keyHash(cols: string[]): string {
    return `CRC32(CONCAT_WS(',', ${cols.join(', ')}))`;
  }

  /** information_schema.TABLES.TABLE_ROWS (InnoDB's estimate). */
  override async estimateRows(conn: SqlConnection, table: string): Promise<number> {
    const r = await conn.query('SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?', [this.schemaOf(table) ?? null, this.baseName(table)]);
    const n = r.rows[0]?.[0];
    return n === null || n === undefined ? super.estimateRows(conn, table) : Number(n);
  }

  describeType(name: string, definition: string): ColumnInfo {
    const ct = definition.toLowerCase();
    const dataType = /^[a-z]+\d*/.exec(ct)![0];
    const n = /\((\d+)(?:,(\d+))?\)/.exec(ct);
    const args = dataType === 'decimal' ? [null, n?.[1], n?.[2] ?? 0, null] : /char|binary/.test(dataType) ? [n?.[1], null, null, null] : [null, null, null, n?.[1] ?? 0];
    return { name, type: ct === 'json' ? 'json' : mysqlType(dataType, ct), dbType: definition, nullable: true, ...mysqlAttributes(dataType, ct, args[0], args[1], args[2], args[3]) };
  }

  /** From a table of this same kind, MariaDB's INET4, INET6 and UUID are created as themselves, not as text that compares and sorts otherwise. */
  override sameKindType(src: ColumnInfo): string | undefined {
    return /^(inet4|inet6|uuid)$/i.test(src.dbType) ? src.dbType.toUpperCase() : undefined;
  }

  /** Keys cannot be TEXT/BLOB without a prefix: key columns get the longest VARCHAR/VARBINARY an index takes (fitKey shares it in a composite key). */
  columnType(_name: string, src: ColumnInfo, srcUntyped: boolean, inKey = false): string {
    const t = mysqlColumnType(src, srcUntyped);
    if (inKey && t === 'LONGTEXT') return 'VARCHAR(768)';
    if (inKey && t === 'LONGBLOB') return 'VARBINARY(3072)';
    return t;
  }

  /** InnoDB keys hold 3,072 bytes: undeclared text key columns share them (mysql/key-fit.ts). */
  override fitKey(table: string, key: KeyColumn[]): string[] {
    return fitKey(table, key);
  }

  override generatedColumn(expr: string, stored: boolean): string {
    return `GENERATED ALWAYS AS (${expr}) ${stored ? 'STORED' : 'VIRTUAL'}`;
  }

  /** Text columns NO PAD on MariaDB (no-pad.ts): 'a' and 'a ' are two keys, as in PostgreSQL. */
  override createTable(table: string, defs: string[]): string[] {
    return [`CREATE TABLE IF NOT EXISTS ${this.table(table)} (${noPadColumns(defs).join(', ')}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`];
  }

  createQueueTable(table: string): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS ${this.table(table)} (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, payload LONGBLOB NOT NULL,
        locked_until DATETIME(6) NULL, created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), INDEX locked_until_idx (locked_until))
        ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    ];
  }

  /** When the table was created (to the second: a table made again within the same second looks the same). */
  override tableIdentity = async (conn: SqlConnection, table: string): Promise<string | undefined> => {
    const r = await conn.query('SELECT CAST(CREATE_TIME AS CHAR) FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?', [this.schemaOf(table) ?? null, this.baseName(table)]);
    const v = r.rows[0]?.[0];
    return v === null || v === undefined ? undefined : `created ${String(v)}`;
  };

  createCheckpointTable(table: string): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS ${this.table(table)} (cursor_id VARCHAR(255) NOT NULL PRIMARY KEY, last_value TEXT NOT NULL,
        updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    ];
  }

  createPositionTable(table: string): string[] {
    return [
      `CREATE TABLE IF NOT EXISTS ${this.table(table)} (route VARCHAR(255) NOT NULL PRIMARY KEY, last_position LONGTEXT NOT NULL, seq BIGINT NOT NULL,
        updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    ];
  }

  upsertCheckpoint(table: string): string {
    return `INSERT INTO ${this.table(table)} (cursor_id, last_value, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP(6))
            ON DUPLICATE KEY UPDATE last_value = VALUES(last_value), updated_at = VALUES(updated_at)`;
  }

  /** MODIFY restates the whole column: its NULL-ness goes with the new type. */
  override alterColumn(table: string, c: AlterColumn): string | undefined {
    if (c.op === 'add') return standardAlter(this, table, { ...c, type: noPadType(c.type) });
    if (c.op !== 'type') return standardAlter(this, table, c);
    return `ALTER TABLE ${this.table(table)} MODIFY COLUMN ${this.quote(c.column)} ${noPadType(c.type)}${c.nullable ? ' NULL' : ' NOT NULL'}`;
  }
}
