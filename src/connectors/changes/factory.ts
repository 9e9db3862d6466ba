import type { Endpoint } from '../../config/endpoint.js';
import { defaultsOf } from '../../config/fields.js';
import { configError } from '../../core/errors.js';
import type { Source } from '../../core/route.js';
import { loadKind } from '../sql/kind.js';
import { DATABASE_SPEC } from '../sql/spec.js';

const OPERATIONS = ['insert', 'update', 'delete', 'truncate'];

/** The operations field as a list; an unknown name is a config error naming the four. */
export function parseOperations(text: string): string[] {
  const ops = text.split(',').map((s) => s.trim().toLowerCase());
  const bad = ops.find((o) => !OPERATIONS.includes(o));
  if (bad !== undefined) throw configError(`operations: "${bad}" is not an operation: give a comma-separated list of ${OPERATIONS.join(', ')}`);
  return [...new Set(ops)];
}

/** Decisions §5 for the change-capture endpoint: combinations that are config errors, before anything connects. */
export function validateChangesEndpoint(ep: Endpoint): void {
  const f = ep.fields;
  const has = (n: string): boolean => ep.given.has(n);
  if (!has('tables')) throw configError(`the ${ep.kind} change-capture source needs tables: add ?tables=<name>[,<name>…] (or * for every table) to its URL`);
  parseOperations(f.operations as string);
  if (has('start_position') && f.snapshot !== 'never') throw configError('start_position starts streaming at a given place, with no initial copy: add snapshot=never');
  if (f.snapshot === 'only')
    for (const other of ['publication', 'create_publication', 'temporary_slot', 'drop_slot', 'start_position', 'heartbeat_interval_ms'])
      if (has(other)) throw configError(`snapshot=only copies the tables once and streams nothing: remove ${other}`);
  if (f.temporary_slot === true && has('drop_slot')) throw configError('temporary_slot=true drops the slot when the run ends anyway: remove drop_slot');
  if (has('checkpoint_store') && f.temporary_slot === true) throw configError('checkpoint_store keeps the initial copy\'s progress, which a temporary slot cannot resume: remove it');
}

/**
 * The endpoint as the kind's change source reads it: the database connector's defaults (pool,
 * connection) under the change-capture fields, with `dedicated` set.
 */
export function asDatabaseView(ep: Endpoint): Endpoint {
  const base = defaultsOf(DATABASE_SPEC);
  return { ...ep, spec: DATABASE_SPEC, fields: { ...base, ...ep.fields, table: ep.fields.tables, dedicated: true, max_connections: 4 } };
}

/** `postgres+cdc://…`, `mariadb+cdc://…`: the kind's change source. */
export async function createChangeSource(ep: Endpoint): Promise<Source> {
  if (ep.role !== 'consumer') throw configError(`${ep.kind}+cdc:// is a source of changes: it cannot be a sink`);
  validateChangesEndpoint(ep);
  const driver = await loadKind(ep.kind);
  if (!driver.changeSource) throw configError(`change capture is not supported on ${ep.kind} in this version of bridge`);
  return driver.changeSource(asDatabaseView(ep));
}
