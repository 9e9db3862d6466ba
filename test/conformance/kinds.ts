import path from 'node:path';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { kindEntry, type Capability } from '../../src/connectors/kinds.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * The kinds every conformance scenario runs on (cf. Kysely's DIALECTS): PostgreSQL, MySQL and
 * MariaDB (both through the MariaDB server), SQLite, and SQL Server when BRIDGE_TEST_MSSQL_URL names
 * one. BRIDGE_TEST_KINDS=postgres,sqlite narrows a run.
 */
export interface KindUnderTest {
  kind: string;
  /** Opens a connection for setting up tables and checking what landed. */
  open(dir: string): Promise<ConformanceDb>;
  has(c: Capability): boolean;
  /** Why this kind is skipped in this run (BRIDGE_TEST_KINDS, or BRIDGE_TEST_MSSQL_URL unset); undefined when it runs. */
  skip: string | undefined;
}

export interface ConformanceDb extends Omit<TestDb, 'kind'> {
  kind: string;
  /** `id` column: an auto-increment 64-bit primary key. */
  serialPk: string;
  dropTable(table: string): Promise<void>;
  count(table: string): Promise<number>;
  /** Ends other sessions of this database's test user (to show reconnection); undefined where there is no server. */
  killOtherSessions?(): Promise<number>;
}

const MSSQL_URL = process.env.BRIDGE_TEST_MSSQL_URL;

const withHelpers = (db: TestDb | Omit<TestDb, 'kind'>, kind: string, serialPk: string, extra: Partial<ConformanceDb> = {}): ConformanceDb => ({
  ...db,
  kind,
  serialPk,
  dropTable: (t) => db.exec(kind === 'sqlserver' ? `IF OBJECT_ID('${t}') IS NOT NULL DROP TABLE ${t}` : `DROP TABLE IF EXISTS ${t}`),
  count: async (t) => Number(Object.values((await db.rows(`SELECT COUNT(*) AS n FROM ${t}`))[0]!)[0]),
  ...extra,
});

async function sqlserver(): Promise<Omit<TestDb, 'kind'>> {
  const { mssqlPoolFactory } = await import('../../src/connectors/sqlserver/driver.js');
  const url = (t: string, q?: string) => `${MSSQL_URL}?table=${t}${q ? `&${q}` : ''}`;
  const conn = await mssqlPoolFactory(resolveEndpoint(url('x'), 'consumer', specForScheme), () => {}).create();
  return {
    url,
    exec: async (sql) => void (await conn.query(sql)),
    rows: async (sql) => {
      const r = await conn.query(sql);
      return r.rows.map((row) => Object.fromEntries(r.fields.map((f, i) => [f.name, row[i]])));
    },
    close: async () => conn.conn.close(),
  };
}

const ALL: KindUnderTest[] = [
  {
    kind: 'postgres',
    open: async () => {
      const db = await postgres();
      return withHelpers(db, 'postgres', 'id bigserial PRIMARY KEY', {
        killOtherSessions: async () =>
          (await db.rows(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND application_name NOT LIKE 'psql%'`)).length,
      });
    },
  },
  ...(['mysql', 'mariadb'] as const).map((kind) => ({
    kind,
    open: async () => {
      const db = await mysqlLike(kind);
      return withHelpers(db, kind, 'id bigint AUTO_INCREMENT PRIMARY KEY', {
        killOtherSessions: async () => {
          const ids = await db.rows(`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND COMMAND <> 'Daemon'`);
          for (const { id } of ids) await db.exec(`KILL ${String(id)}`).catch(() => {});
          return ids.length;
        },
      });
    },
  })),
  { kind: 'sqlite', open: async (dir: string) => withHelpers(sqlite(path.join(dir, 'conformance.db')), 'sqlite', 'id INTEGER PRIMARY KEY AUTOINCREMENT') },
  { kind: 'sqlserver', open: async () => withHelpers(await sqlserver(), 'sqlserver', 'id bigint IDENTITY PRIMARY KEY') },
].map((k) => ({ ...k, has: (c: Capability) => kindEntry(k.kind)!.capabilities.includes(c), skip: skipReason(k.kind) }));

/** Why a kind does not run here, from the environment: undefined when it runs. Skipped kinds are reported, never faked. */
function skipReason(kind: string): string | undefined {
  const only = process.env.BRIDGE_TEST_KINDS?.split(',').map((s) => s.trim()).filter(Boolean);
  if (only && !only.includes(kind)) return 'left out by BRIDGE_TEST_KINDS';
  if (kind === 'sqlserver' && !MSSQL_URL) return 'no SQL Server here: set BRIDGE_TEST_MSSQL_URL';
  return undefined;
}

/** Every kind; each scenario file runs `describe.skipIf(k.skip !== undefined)` over them. */
export const KINDS: KindUnderTest[] = ALL;
