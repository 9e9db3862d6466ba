import { userInfo } from 'node:os';
import type { Endpoint } from '../../config/endpoint.js';
import { databaseTlsOptions } from '../../config/tls-files.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { configError, type BridgeError, type ErrorKind } from '../../core/errors.js';
import { isNetworkError, isTlsError, wrap } from '../sql/errors.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection, SqlResult } from '../sql/types.js';
import { PreparedNames } from './prepared-names.js';
import { knownOid, pgType } from './types.js';
import { guardReason } from './dialect.js';

type PgModule = typeof import('pg');
type PgClient = import('pg').Client;

let pgModule: Promise<PgModule> | undefined;

/**
 * The pg module. On Node 20, which has no `navigator` (Node 21 and later do), pg's check for a
 * Cloudflare Worker falls back to constructing a fetch `Response`, which loads Node's own undici:
 * about 11 ms of every start. A `navigator` like Node 21's is defined while pg loads, then removed.
 */
export function loadPg(): Promise<PgModule> {
  return (pgModule ??= (async () => {
    const g = globalThis as { navigator?: unknown };
    const stub = !('navigator' in g);
    if (stub) g.navigator = { userAgent: `Node.js/${process.versions.node.split('.')[0]}` };
    try {
      return (await import('pg')).default as unknown as PgModule;
    } finally {
      if (stub) delete g.navigator;
    }
  })());
}

/** Every value arrives as the server's text: exact, and rendered by our own rules (decisions §4). */
const RAW_TYPES = { getTypeParser: () => (v: string) => v };

/** A pg client with the query shape the SQL layer expects. */
export class PgConnection implements SqlConnection {
  /** Set when the connection errored or ended (e.g. while idle in the pool). */
  dead = false;

  get sessionId(): string {
    return String((this.client as unknown as { processID?: number }).processID ?? '');
  }

  constructor(readonly client: PgClient) {
    client.on('error', () => (this.dead = true));
    client.on('end', () => (this.dead = true));
  }

  /** Array type OIDs beyond the built-in list, as this database's pg_type tells them; others asked for are scalars. */
  private readonly arrays = new Map<number, number>();
  private readonly asked = new Set<number>();

  private readonly prepared = new PreparedNames();

  async query(sql: string, params: readonly unknown[] = [], reuse = false): Promise<SqlResult> {
    const run = (name: string | undefined) => this.client.query({ ...(name ? { name } : {}), text: sql, values: params as unknown[], rowMode: 'array', types: RAW_TYPES });
    const name = reuse ? this.prepared.nameOf(sql) : undefined;
    // A name refused before anything ran: the same statement unnamed (the caller runs it outside a transaction).
    const r = await run(name)
      .catch((e: unknown) => (name && this.prepared.refused(e) ? run(undefined) : Promise.reject(e)))
      .catch((e: unknown) => {
        throw nameColumn(e, sql);
      });
    const fields = r.fields ?? [];
    // An array of a type outside the built-in list (aclitem[], inet[], an enum's) was one string before.
    const unknown = fields.map((f) => f.dataTypeID).filter((oid) => !knownOid(oid) && !this.asked.has(oid));
    if (unknown.length) await this.learnTypes(unknown);
    return {
      rows: r.rows as unknown[][],
      fields: fields.map((f) => ({ name: f.name, ...pgType(f.dataTypeID, this.arrays) })),
      affected: r.rowCount ?? 0,
    };
  }

  /** The arrays among `oids`: an element type's own array type (int2vector and oidvector are not; their text has no braces). */
  private async learnTypes(oids: number[]): Promise<void> {
    for (const oid of oids) this.asked.add(oid);
    const r = await this.client.query({ text: "SELECT t.oid::int, t.typelem::int FROM pg_type t JOIN pg_type e ON e.oid = t.typelem AND e.typarray = t.oid WHERE t.oid = ANY($1::oid[])", values: [oids], rowMode: 'array', types: RAW_TYPES });
    for (const [oid, elem] of r.rows as string[][]) this.arrays.set(Number(oid), Number(elem));
  }

  /** A prepared, named statement: parsed once per connection, for hot insert paths. */
  async queryNamed(name: string, sql: string, params: readonly unknown[]): Promise<number> {
    const r = await this.client.query({ name, text: sql, values: params as unknown[], types: RAW_TYPES });
    return r.rowCount ?? 0;
  }
}

/** Connection-string parameters pg understands: anything else in a URL is a mistake, not an option. */
const PG_PARAMS = new Set([
  'sslmode',
  'sslcert',
  'sslkey',
  'sslrootcert',
  'application_name',
  'fallback_application_name',
  'options',
  'client_encoding',
  'connect_timeout',
  'keepalives',
  'keepalives_idle',
  'statement_timeout',
  'query_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
]);

/** Builds the pg client config from the endpoint: fields win over URL userinfo; pg's own parameters pass through. */
export function pgConfig(ep: Endpoint, warn: (s: string) => void): Record<string, unknown> {
  const u = ep.url!;
  // Like libpq: without a user anywhere, the operating-system user.
  const user = (ep.fields.username as string | undefined) ?? u.username ?? process.env.PGUSER ?? userInfo().username;
  const password = (ep.fields.password as string | undefined) ?? u.password;
  const pass = new URLSearchParams();
  let options = '-c TimeZone=UTC -c DateStyle=ISO,MDY -c IntervalStyle=postgres -c extra_float_digits=1';
  for (const [k, v] of ep.passthrough) {
    if (!PG_PARAMS.has(k)) throw configError(`${k} is neither a field of the postgres connector nor a PostgreSQL connection parameter (${[...PG_PARAMS].join(', ')})`);
    if (k === 'options') options += ` ${v}`;
    else pass.append(k, v);
  }
  const host = u.host.includes(':') ? `[${u.host}]` : u.host;
  // pg lets connection-string values override config fields (even with undefined), so credentials go in the string.
  const auth = `${encodeURIComponent(user)}${password === undefined ? '' : `:${encodeURIComponent(password)}`}@`;
  const cs = `postgres://${auth}${host || 'localhost'}${u.port ? `:${u.port}` : ''}/${encodeURIComponent(u.path)}${pass.size ? `?${pass}` : ''}`;
  const cfg: Record<string, unknown> = { connectionString: cs, options, application_name: 'bridge' };
  const ssl = databaseTlsOptions(ep.fields.tls as TlsConfig | undefined, warn);
  if (ssl) {
    if (pass.has('sslmode')) throw configError('give either tls or sslmode, not both');
    cfg.ssl = ssl;
  }
  return cfg;
}

/**
 * An error one row caused: SQLSTATE 22 (data exception), 54 (a program limit: a JSON document
 * nested past max_stack_depth), a trigger's RAISE EXCEPTION or ASSERT (P0001, P0004: the table's own
 * validation), and PostGIS's input errors, which it raises as XX000 (internal error) from
 * lwgeom_pg.c ("parse error - invalid geometry"): one such row stopped a copy, exit 1.
 */
function valueError(e: { code?: string; file?: string }): boolean {
  const code = e.code ?? '';
  return code.startsWith('22') || code.startsWith('54') || code === 'P0001' || code === 'P0004' || (code === 'XX000' && e.file === 'lwgeom_pg.c');
}

/**
 * A value the server itself refused names its column: PostgreSQL says only which parameter
 * (`unnamed portal parameter $2`) or which COPY column it was. Inserts bind each row's values in
 * the column list's order, so parameter $n is column (n - 1) mod the list's length.
 */
export function nameColumn(e: unknown, sql: string): unknown {
  const err = e as { code?: string; where?: string; message?: string; file?: string };
  if (!err?.code || !valueError(err) || typeof err.where !== 'string' || typeof err.message !== 'string') return e;
  let column = /^COPY [^,]+, line \d+, column ([^:]+):/.exec(err.where)?.[1];
  const param = /parameter \$(\d+)/.exec(err.where)?.[1];
  const list = /^\s*INSERT INTO [^(]+\(([^)]*)\)\s*(?:OVERRIDING SYSTEM VALUE\s+)?VALUES/i.exec(sql)?.[1];
  if (column === undefined && param && list) {
    const cols = list.split(',').map((c) => c.trim().replace(/^"|"$/g, '').replace(/""/g, '"'));
    column = cols[(Number(param) - 1) % cols.length];
  }
  if (column !== undefined) err.message = `field ${column}: ${err.message}`;
  return e;
}

/** Classifies a pg error by SQLSTATE class (decisions §9, §10). */
export function classifyPg(e: unknown, connecting = false): BridgeError {
  const code = (e as { code?: string })?.code ?? '';
  const guarded = code === '22P02' ? guardReason((e as Error).message) : undefined;
  if (guarded) (e as Error).message = guarded;
  let kind: ErrorKind = 'fatal';
  if (isTlsError(e)) kind = 'connect';
  else if (isNetworkError(e) || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('53')) kind = connecting ? 'connect' : 'transient';
  else if (code.startsWith('28') || code === '3D000') kind = 'connect';
  else if (code === '40001' || code === '40P01' || code === '55P03') kind = 'transient';
  else if (code.startsWith('23') || valueError(e as { code?: string; file?: string })) kind = 'rejected';
  // "ON CONFLICT DO UPDATE command cannot affect row a second time": two messages of a batch whose
  // keys differ but the key compares equal (citext): the batch is refused and written in parts, where
  // the second finds the first's row (upsertClause's guard). It stopped a copy with exit 1.
  else if (code === '21000' && /ON CONFLICT DO UPDATE/.test((e as Error).message ?? '')) {
    kind = 'rejected';
    (e as Error).message += ' (two messages of the batch have keys the target compares equal)';
  }
  else if (/timeout expired|timed out/i.test((e as Error)?.message ?? '')) kind = connecting ? 'connect' : 'transient';
  return wrap(kind, e, connecting || kind === 'connect' ? 'cannot connect to PostgreSQL: ' : '', code === '23505');
}

export function pgPoolFactory(ep: Endpoint, warn: (s: string) => void): PoolFactory<PgConnection> {
  const cfg = pgConfig(ep, warn);
  return {
    async create() {
      const pg = await loadPg();
      const client = new pg.Client(cfg);
      // An idle client whose server went away emits 'error': PgConnection marks itself dead and the pool drops it.
      client.on('error', () => {});
      try {
        await client.connect();
      } catch (e) {
        throw classifyPg(e, true);
      }
      return new PgConnection(client);
    },
    async destroy(c) {
      await c.client.end();
    },
    async ping(c) {
      await c.client.query('SELECT 1');
    },
    isBroken: (c, e) => {
      const k = classifyPg(e).kind;
      return c.dead || k === 'transient' || k === 'connect';
    },
    alive: (c) => !c.dead,
  };
}
