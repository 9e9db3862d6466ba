import type { Endpoint } from '../../config/endpoint.js';
import type { Sink, Source } from '../../core/route.js';
import { configError } from '../../core/errors.js';
import { SqlSink } from './sink.js';
import { SqlSource } from './source.js';
import { validateDatabaseEndpoint } from './validate.js';

const IMPLEMENTED = new Set(['postgres', 'mysql', 'mariadb', 'sqlite', 'sqlserver']);

function check(ep: Endpoint): void {
  if (!IMPLEMENTED.has(ep.kind)) throw configError(`${ep.kind} is not implemented yet in this version of bridge`);
  validateDatabaseEndpoint(ep);
}

export async function createSqlSource(ep: Endpoint): Promise<Source> {
  check(ep);
  if (ep.given.has('publication')) return new (await import('../postgres/cdc-source.js')).CdcSource(ep);
  return new SqlSource(ep);
}

export function createSqlSink(ep: Endpoint): Sink {
  check(ep);
  return new SqlSink(ep);
}
