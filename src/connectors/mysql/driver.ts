import { userInfo } from 'node:os';
import type { Endpoint } from '../../config/endpoint.js';
import { databaseTlsOptions } from '../../config/tls-files.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { configError, type BridgeError, type ErrorKind } from '../../core/errors.js';
import { isNetworkError, isTlsError, wrap } from '../sql/errors.js';
import type { PoolFactory } from '../sql/pool.js';
import type { LogicalType, SqlConnection, SqlResult } from '../sql/types.js';
import { movedKeyOf } from './dialect.js';

type MysqlConn = import('mysql2/promise').Connection;

/** mysql2 options a URL may pass through (plain values only). */
const PASSABLE = new Set(['compress', 'connectTimeout', 'enableKeepAlive', 'keepAliveInitialDelay', 'localAddress', 'socketPath', 'insecureAuth', 'enableCleartextPlugin', 'flags', 'maxPreparedStatements', 'trace']);
/** Options bridge sets itself so values pass through exactly (perf-notes: mysql2 would re-serialise JSON and round decimals). */
const FORCED = {
  supportBigNumbers: true,
  bigNumberStrings: true,
  decimalNumbers: false,
  dateStrings: true,
  jsonStrings: true,
  timezone: 'Z',
  multipleStatements: false,
  charset: 'UTF8MB4_UNICODE_CI',
} as const;

/** mysql2 column type codes → logical type (binary charset 63 marks bytes). */
export function fieldType(f: { columnType?: number; characterSet?: number; columnLength?: number }): LogicalType | undefined {
  const t = f.columnType;
  switch (t) {
    case 1:
      return f.columnLength === 1 ? 'bool' : 'int';
    case 2:
    case 3:
    case 9:
    case 13:
      return 'int';
    case 8:
      return 'bigint';
    case 0:
    case 246:
      return 'decimal';
    case 4:
    case 5:
      return 'float';
    case 7:
    case 12:
      return 'timestamp';
    case 10:
    case 14:
      return 'date';
    case 11:
      return 'time';
    case 245:
      return 'json';
    case 16:
      return f.columnLength === 1 ? 'bool' : 'bytes';
    case 249:
    case 250:
    case 251:
    case 252:
    case 253:
    case 254:
      return f.characterSet === 63 ? 'bytes' : 'text';
    default:
      return undefined;
  }
}

export class MysqlConnection implements SqlConnection {
  /** Set when the connection errored or ended (e.g. while idle in the pool). */
  dead = false;

  get sessionId(): string {
    return String(this.conn.threadId ?? '');
  }

  constructor(readonly conn: MysqlConn) {
    conn.on('error', () => (this.dead = true));
    conn.on('end', () => (this.dead = true));
  }

  async query(sql: string, params: readonly unknown[] = []): Promise<SqlResult> {
    const [rows, fields] = await this.conn.query({ sql, rowsAsArray: true, values: params as unknown[] });
    if (!Array.isArray(rows)) return { rows: [], fields: [], affected: (rows as { affectedRows?: number }).affectedRows ?? 0 };
    return {
      rows: rows as unknown[][],
      fields: (fields ?? []).map((f) => ({ name: f.name, type: fieldType(f as never) })),
      affected: 0,
    };
  }
}

function coerceOption(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

export function mysqlConfig(ep: Endpoint, warn: (s: string) => void): Record<string, unknown> {
  const u = ep.url!;
  const cfg: Record<string, unknown> = { host: u.host || 'localhost', port: u.port ?? 3306 };
  if (u.path) cfg.database = u.path;
  // Like the mysql client: without a user anywhere, the operating-system user.
  const user = (ep.fields.username as string | undefined) ?? u.username ?? userInfo().username;
  const password = (ep.fields.password as string | undefined) ?? u.password;
  if (user !== undefined) cfg.user = user;
  if (password !== undefined) cfg.password = password;
  for (const [k, v] of ep.passthrough) {
    if (k in FORCED) throw configError(`${k} is set by bridge so that values pass through exactly; remove it from the URL`);
    if (!PASSABLE.has(k)) throw configError(`${k} is neither a field of the ${ep.kind} connector nor a mysql2 connection option (${[...PASSABLE].join(', ')})`);
    cfg[k] = coerceOption(v);
  }
  Object.assign(cfg, FORCED);
  const ssl = databaseTlsOptions(ep.fields.tls as TlsConfig | undefined, warn);
  if (ssl) cfg.ssl = ssl;
  return cfg;
}

const TRANSIENT = new Set(['PROTOCOL_CONNECTION_LOST', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'ER_SERVER_SHUTDOWN', 'ER_CON_COUNT_ERROR', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CLIENT_INTERACTION_TIMEOUT', 'ER_NORMAL_SHUTDOWN']);
/** Errors about one value or row (the rest of a batch can go on): wrong value, truncated, missing, not JSON. */
const VALUE_ERRORS = new Set([
  'ER_INVALID_JSON_TEXT',
  'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
  'WARN_DATA_TRUNCATED',
  'ER_TRUNCATED_WRONG_VALUE',
  'ER_WARN_DATA_OUT_OF_RANGE',
  'ER_DATA_TOO_LONG',
  'ER_NO_DEFAULT_FOR_FIELD',
  'ER_INVALID_CHARACTER_STRING',
  'ER_WRONG_VALUE_FOR_TYPE',
  'ER_ILLEGAL_VALUE_FOR_TYPE',
  'ER_CANT_CREATE_GEOMETRY_OBJECT',
  'ER_BAD_NULL_ERROR',
  'ER_CONSTRAINT_FAILED',
]);
const CONNECT = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE', 'HANDSHAKE_SSL_ERROR', 'HANDSHAKE_NO_SSL_SUPPORT']);

export function classifyMysql(e: unknown, connecting = false): BridgeError {
  const code = (e as { code?: string })?.code ?? '';
  const moved = code === 'ER_TRUNCATED_WRONG_VALUE' ? movedKeyOf((e as Error).message) : undefined;
  if (moved) (e as Error).message = moved;
  const state = (e as { sqlState?: string })?.sqlState ?? '';
  let kind: ErrorKind = 'fatal';
  if (CONNECT.has(code) || isTlsError(e)) kind = 'connect';
  else if (isNetworkError(e) || TRANSIENT.has(code) || state.startsWith('08')) kind = connecting ? 'connect' : 'transient';
  // 45000: a trigger's SIGNAL, the table's own validation of the row.
  else if (state.startsWith('22') || state.startsWith('23') || state === '45000' || VALUE_ERRORS.has(code)) kind = 'rejected';
  return wrap(kind, e, connecting ? `cannot connect to ${code === 'ER_BAD_DB_ERROR' ? 'the database' : 'MySQL/MariaDB'}: ` : '', code === 'ER_DUP_ENTRY' || code === 'ER_DUP_ENTRY_WITH_KEY_NAME');
}

export function mysqlPoolFactory(ep: Endpoint, warn: (s: string) => void): PoolFactory<MysqlConnection> {
  const cfg = mysqlConfig(ep, warn);
  return {
    async create() {
      const mysql = (await import('mysql2/promise')).default;
      let conn: MysqlConn;
      try {
        conn = await mysql.createConnection(cfg);
        await conn.query("SET time_zone = '+00:00'");
        // Strict: a value the column cannot hold is an error, never a silent truncation; 0 stays 0 in
        // AUTO_INCREMENT columns (copies keep their keys).
        await conn.query("SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,NO_AUTO_VALUE_ON_ZERO'");
        // READ COMMITTED: no gap locks, so leasing readers and deletes of confirmed rows do not deadlock.
        await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
      } catch (e) {
        throw classifyMysql(e, true);
      }
      // Without a listener, a connection dropped while idle would crash the process.
      conn.on('error', () => {});
      return new MysqlConnection(conn);
    },
    async destroy(c) {
      c.conn.destroy();
    },
    async ping(c) {
      await c.conn.ping();
    },
    isBroken: (c, e) => {
      const k = classifyMysql(e).kind;
      return c.dead || k === 'transient' || k === 'connect';
    },
    alive: (c) => !c.dead,
  };
}
