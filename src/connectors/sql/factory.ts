import type { Endpoint } from '../../config/endpoint.js';
import type { Sink, Source } from '../../core/route.js';
import { configError } from '../../core/errors.js';
import { kindEntry } from '../kinds.js';
import { loadKind } from './kind.js';
import { SqlSink } from './sink.js';
import { SqlSource } from './source.js';
import { validateDatabaseEndpoint } from './validate.js';

function check(ep: Endpoint): void {
  if (!kindEntry(ep.kind)) throw configError(`${ep.kind} is not implemented yet in this version of bridge`);
  validateDatabaseEndpoint(ep);
}

export async function createSqlSource(ep: Endpoint): Promise<Source> {
  check(ep);
  if (ep.given.has('publication')) {
    const driver = await loadKind(ep.kind);
    if (!driver.changeSource) throw configError(`publication (change capture) is not supported on ${ep.kind}`);
    return driver.changeSource(ep);
  }
  return new SqlSource(ep);
}

export function createSqlSink(ep: Endpoint): Sink {
  check(ep);
  return new SqlSink(ep);
}
