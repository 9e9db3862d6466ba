import { readTlsFile } from '../../config/tls-files.js';
import type { Endpoint } from '../../config/endpoint.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { configError, type BridgeError, type ErrorKind } from '../../core/errors.js';
import { isNetworkError, isTlsError, wrap } from '../sql/errors.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection, SqlResult } from '../sql/types.js';
import { tediousType } from './types.js';
import { optionalImport } from '../../core/optional.js';

type Tedious = typeof import('tedious');
type TediousConnection = import('tedious').Connection;

let lib: Tedious | undefined;
const tedious = async (): Promise<Tedious> => (lib ??= (await optionalImport<{ default: Tedious }>('tedious', 'SQL Server (sqlserver://)')).default);

/** tedious options a URL may pass through (plain values only). */
const PASSABLE = new Set(['instanceName', 'connectTimeout', 'requestTimeout', 'appName', 'packetSize', 'tdsVersion', 'multiSubnetFailover', 'readOnlyIntent', 'language', 'dateFirst', 'connectionRetryInterval', 'maxRetriesOnTransientErrors']);

/** The tedious type a JS value is sent as. Text goes as NVARCHAR: SQL Server converts it exactly into the column's type. */
export function parameterType(t: Tedious['TYPES'], v: unknown): { type: unknown; value: unknown; options?: object } {
  if (v === null || v === undefined) return { type: t.NVarChar, value: null };
  if (Buffer.isBuffer(v)) return { type: t.VarBinary, value: v, options: { length: Infinity } };
  if (typeof v === 'boolean') return { type: t.Bit, value: v };
  if (typeof v === 'bigint') return { type: t.BigInt, value: v.toString() };
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { type: t.BigInt, value: v } : { type: t.Float, value: v };
  return { type: t.NVarChar, value: String(v), options: { length: Infinity } };
}

/** One tedious connection behind the SQL layer's query interface. */
export class MssqlConnection implements SqlConnection {
  dead = false;

  constructor(
    readonly conn: TediousConnection,
    private readonly lib: Tedious,
  ) {
    conn.on('error', () => (this.dead = true));
    conn.on('end', () => (this.dead = true));
  }

  query(sql: string, params: readonly unknown[] = []): Promise<SqlResult> {
    return new Promise((resolve, reject) => {
      const rows: unknown[][] = [];
      let fields: SqlResult['fields'] = [];
      const req = new this.lib.Request(sql, (err, rowCount) => (err ? reject(err) : resolve({ rows, fields, affected: rowCount ?? 0 })));
      params.forEach((v, i) => {
        const p = parameterType(this.lib.TYPES, v);
        req.addParameter(`p${i + 1}`, p.type as never, p.value, (p.options ?? null) as never);
      });
      req.on('columnMetadata', ((cols: { colName: string; type: { name: string } }[]) => {
        fields = cols.map((c) => ({ name: c.colName, type: tediousType(c.type.name) }));
      }) as never);
      req.on('row', (columns: { value: unknown }[]) => {
        // Dates (from a select_query that did not CONVERT them) as ISO text rather than JS Date strings.
        rows.push(columns.map((c) => (c.value instanceof Date ? c.value.toISOString().replace('T', ' ').replace('Z', '') : c.value)));
      });
      // Transaction control and parameterless statements go as batches (no sp_executesql wrapper).
      if (params.length === 0) this.conn.execSqlBatch(req);
      else this.conn.execSql(req);
    });
  }
}

/** Login failures and unreachable servers are "cannot connect"; deadlocks and lock timeouts are retried; constraint and conversion errors are rejections. */
export function classifyMssql(e: unknown, connecting = false): BridgeError {
  const code = String((e as { code?: string })?.code ?? '');
  const number = Number((e as { number?: number })?.number ?? 0);
  let kind: ErrorKind = 'fatal';
  if (code === 'ELOGIN' || isTlsError(e)) kind = 'connect';
  else if (code === 'ESOCKET' || code === 'ETIMEOUT' || code === 'ECLOSE' || code === 'ECONNCLOSED' || isNetworkError(e)) kind = connecting ? 'connect' : 'transient';
  else if (number === 1205 || number === 1222 || number === 40501 || number === 40613) kind = 'transient';
  else if ([2627, 2601, 515, 547, 8152, 2628, 245, 8114, 220, 8115, 241, 242, 517, 13609, 3621].includes(number)) kind = 'rejected';
  return wrap(kind, e, connecting || kind === 'connect' ? 'cannot connect to SQL Server: ' : '', number === 2627 || number === 2601);
}

export function mssqlConfig(ep: Endpoint, warn: (s: string) => void): Record<string, unknown> {
  const u = ep.url!;
  const user = (ep.fields.username as string | undefined) ?? u.username;
  const password = (ep.fields.password as string | undefined) ?? u.password;
  const tls = ep.fields.tls as TlsConfig | undefined;
  const options: Record<string, unknown> = {
    database: u.path || undefined,
    appName: 'bridge',
    useUTC: true,
    rowCollectionOnRequestCompletion: false,
    // tls.required turns encryption on; the certificate is verified unless accept_invalid_certs.
    encrypt: tls?.required ?? false,
    trustServerCertificate: tls?.accept_invalid_certs ?? false,
  };
  if (u.port) options.port = u.port;
  if (tls?.accept_invalid_certs) warn('tls.accept_invalid_certs is set: the server certificate is not verified (insecure)');
  if (tls?.ca_file) options.cryptoCredentialsDetails = { ca: readTlsFile(tls.ca_file, 'ca_file') };
  if (tls?.cert_file || tls?.key_file) throw configError('tls.cert_file/key_file (client certificates) are not supported by the SQL Server driver; remove them');
  for (const [k, v] of ep.passthrough) {
    if (!PASSABLE.has(k)) throw configError(`${k} is neither a field of the sqlserver connector nor a tedious connection option (${[...PASSABLE].join(', ')})`);
    options[k] = v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v;
  }
  return {
    server: u.host || 'localhost',
    authentication: { type: 'default', options: { userName: user, password } },
    options,
  };
}

export function mssqlPoolFactory(ep: Endpoint, warn: (s: string) => void): PoolFactory<MssqlConnection> {
  const cfg = mssqlConfig(ep, warn);
  return {
    async create() {
      const t = await tedious();
      const conn = new t.Connection(cfg as never);
      await new Promise<void>((resolve, reject) => {
        conn.on('connect', (err) => (err ? reject(classifyMssql(err, true)) : resolve()));
        conn.connect();
      });
      return new MssqlConnection(conn, t);
    },
    async destroy(c) {
      c.conn.close();
    },
    async ping(c) {
      await c.query('SELECT 1');
    },
    isBroken: (c, e) => {
      const k = classifyMssql(e).kind;
      return c.dead || k === 'transient' || k === 'connect';
    },
    alive: (c) => !c.dead,
  };
}
