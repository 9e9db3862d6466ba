import type { KindDriver } from './sql/kind.js';

/** What a kind can do beyond the common fields; a field that needs a capability is refused elsewhere. */
/** held_transactions: a mirror may hold a transaction open beside its other writes (MVCC row locks), see SqlSink.writeHeld. */
export type Capability = 'tls' | 'bulk_copy' | 'change_capture' | 'timestamps' | 'select_query' | 'held_transactions';

export interface KindEntry {
  /** URL schemes naming this kind. */
  schemes: readonly string[];
  capabilities: readonly Capability[];
  /** A server reached over the network (a checkpoint_store URL may name one). */
  server: boolean;
  /** The batch-size placeholder of select_query, when the kind has select_query. */
  batchPlaceholder?: string;
  load(): Promise<KindDriver>;
}

/**
 * The database kinds. Adding one = a folder under src/connectors/ with an index exporting its
 * KindDriver, and one line here. Loading this module loads no driver.
 */
export const DATABASE_KINDS: Readonly<Record<string, KindEntry>> = {
  postgres: { schemes: ['postgres', 'postgresql'], capabilities: ['tls', 'bulk_copy', 'change_capture', 'timestamps', 'select_query', 'held_transactions'], server: true, batchPlaceholder: '$1', load: async () => (await import('./postgres/index.js')).postgresKind },
  mysql: { schemes: ['mysql'], capabilities: ['tls'], server: true, load: async () => (await import('./mysql/index.js')).mysqlKind('mysql') },
  mariadb: { schemes: ['mariadb'], capabilities: ['tls'], server: true, load: async () => (await import('./mysql/index.js')).mysqlKind('mariadb') },
  sqlite: { schemes: ['sqlite'], capabilities: [], server: false, load: async () => (await import('./sqlite/index.js')).sqliteKind },
  sqlserver: { schemes: ['sqlserver', 'mssql'], capabilities: ['tls', 'select_query'], server: true, batchPlaceholder: '@p1', load: async () => (await import('./sqlserver/index.js')).sqlserverKind },
};

export const kindEntry = (kind: string): KindEntry | undefined => (Object.hasOwn(DATABASE_KINDS, kind) ? DATABASE_KINDS[kind] : undefined);

/** The kinds that have a capability (field specs list them as the kinds a field applies to). */
export const kindsWith = (c: Capability): string[] => Object.keys(DATABASE_KINDS).filter((k) => DATABASE_KINDS[k]!.capabilities.includes(c));

/** Schemes of the kinds that are files, not servers (their URL is a path). */
export const fileSchemes = (): string[] => Object.values(DATABASE_KINDS).flatMap((e) => (e.server ? [] : e.schemes));

/** scheme → kind, for every database scheme. */
export const databaseSchemes = (): Record<string, string> => Object.fromEntries(Object.entries(DATABASE_KINDS).flatMap(([k, e]) => e.schemes.map((s) => [s, k])));
