import type { Endpoint } from '../../config/endpoint.js';
import type { BridgeError } from '../../core/errors.js';
import type { Dialect } from './dialect.js';
import type { PoolFactory } from './pool.js';
import type { SqlConnection } from './types.js';

/** What one database kind plugs into the shared SQL layer. */
export interface KindDriver {
  dialect: Dialect;
  poolFactory(ep: Endpoint, warn: (s: string) => void): PoolFactory<SqlConnection>;
  classify(e: unknown, connecting?: boolean): BridgeError;
  /** The database does not enforce declared types (SQLite): render defensively. */
  loose: boolean;
  /** Parses array text into elements (PostgreSQL). */
  parseArray?: (text: string) => unknown;
}

/** Loads the driver module of a kind only when a route uses it. */
export async function loadKind(kind: string): Promise<KindDriver> {
  switch (kind) {
    case 'postgres':
      return (await import('../postgres/index.js')).postgresKind;
    case 'mysql':
    case 'mariadb':
      return (await import('../mysql/index.js')).mysqlKind(kind);
    case 'sqlite':
      return (await import('../sqlite/index.js')).sqliteKind;
    case 'sqlserver':
      return (await import('../sqlserver/index.js')).sqlserverKind;
    default:
      throw new Error(`no SQL driver for ${kind}`);
  }
}
