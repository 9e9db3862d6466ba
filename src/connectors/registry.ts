import type { ConnectorSpec } from '../config/fields.js';
import type { Endpoint } from '../config/endpoint.js';
import type { Sink, Source } from '../core/route.js';
import { configError } from '../core/errors.js';
import { CHANGES_SPEC } from './changes/spec.js';
import { HTTP_SPEC } from './http/spec.js';
import { NDJSON_SPEC } from './ndjson/spec.js';
import { DATABASE_SPEC } from './sql/spec.js';

/** Every connector's schema. Loading this module loads no driver. */
export const SPECS: readonly ConnectorSpec[] = [DATABASE_SPEC, CHANGES_SPEC, HTTP_SPEC, NDJSON_SPEC];

export function specForScheme(scheme: string): ConnectorSpec | undefined {
  return SPECS.find((s) => Object.hasOwn(s.schemes, scheme));
}

/** Builds the source of an endpoint, importing its driver only now. */
export async function createSource(ep: Endpoint): Promise<Source> {
  switch (ep.spec.name) {
    case 'ndjson':
      return new (await import('./ndjson/source.js')).NdjsonSource(ep);
    case 'database':
      return (await import('./sql/factory.js')).createSqlSource(ep);
    case 'change-capture':
      return (await import('./changes/factory.js')).createChangeSource(ep);
    case 'http':
      return new (await import('./http/source.js')).HttpSource(ep);
    default:
      throw configError(`the ${ep.kind} connector cannot be a source`);
  }
}

/** Builds the sink of an endpoint, importing its driver only now. */
export async function createSink(ep: Endpoint): Promise<Sink> {
  switch (ep.spec.name) {
    case 'ndjson':
      return new (await import('./ndjson/sink.js')).NdjsonSink(ep);
    case 'database':
      return (await import('./sql/factory.js')).createSqlSink(ep);
    case 'http':
      return new (await import('./http/sink.js')).HttpSink(ep);
    default:
      throw configError(`the ${ep.kind} connector cannot be a sink`);
  }
}

/** `table=a,b` / `table=*` / `table=schema.*` on a database source: the tables it names (see sql/read/table-list.ts). */
export async function listSourceTables(ep: Endpoint, exclude: string[], warn: (s: string) => void): Promise<string[]> {
  if (ep.spec.name !== 'database') throw configError(`a list of tables needs a database source; the ${ep.kind} source has no tables`);
  return (await import('./sql/read/table-list.js')).expandTables(ep, exclude, warn);
}

/** A migration's last step: the source's indexes and constraints on the sink's tables (see sql/schema/finish.ts). */
export async function schemaFinisher(...a: ConstructorParameters<typeof import('./sql/schema/finish.js').SchemaFinisher>): Promise<import('./sql/schema/finish.js').SchemaFinisher> {
  return new (await import('./sql/schema/finish.js')).SchemaFinisher(...a);
}

/** Whether an endpoint's table field names several tables (`a,b`, `*`, `schema.*`). */
export function namesSeveralTables(ep: Endpoint): boolean {
  const t = ep.fields.table;
  return ep.spec.name === 'database' && typeof t === 'string' && /[*,]/.test(t);
}

/** `--parallel N` on one database table: the source field of each of its N parts (see sql/read/table-split.ts). */
export async function splitSourceTable(ep: Endpoint, n: number, warn: (s: string) => void): Promise<[string, string][]> {
  if (ep.spec.name !== 'database') throw configError(`--parallel splits a database table; the ${ep.kind} source has none`);
  return (await import('./sql/read/table-split.js')).splitTable(ep, n, warn);
}

/** `bridge slots`: PostgreSQL's replication slots, or the binlog captures a MariaDB/MySQL database keeps, listed and dropped by the kind that knows them. */
export const replicationSlots = (kind: 'postgres' | 'binlog') => (kind === 'postgres' ? import('./postgres/slots.js') : import('./mysql/binlog-slots.js'));
