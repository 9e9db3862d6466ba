import path from 'node:path';
import type { CheckpointStore } from '../../checkpoint/envelope.js';
import { FileCheckpointStore } from '../../checkpoint/file-store.js';
import { configError } from '../../core/errors.js';
import { TableCheckpointStore } from './checkpoint-table.js';
import type { Database } from './database.js';
import { checkIdent, fitName } from './identifiers.js';

/**
 * Contract §4.2 checkpoint_store resolution: absent → bridge_cursors_<table> in the source; a bare
 * name or /<name> → that table in the source; file://<path> → a local JSON file.
 */
export function resolveCheckpointStore(value: string | undefined, db: Database, table: string): CheckpointStore {
  const d = db.dialect;
  if (value === undefined) {
    const schema = d.schemaOf(table);
    const name = fitName(`bridge_cursors_${d.baseName(table)}`, d.maxIdentLength);
    return new TableCheckpointStore(db, schema ? `${schema}.${name}` : name, 'the source database');
  }
  if (value.startsWith('file://')) {
    const p = value.slice('file://'.length);
    if (p === '') throw configError('checkpoint_store=file:// needs a path, e.g. file:///var/lib/bridge/cursors.json');
    return new FileCheckpointStore(path.resolve(decodeURIComponent(p)));
  }
  const bare = value.startsWith('/') ? value.slice(1) : value;
  if (!bare.includes('://') && !bare.includes('/')) {
    const parts = bare.split('.');
    for (const p of parts) checkIdent(p, 'checkpoint_store table', d.maxIdentLength);
    return new TableCheckpointStore(db, bare, 'the source database');
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase() ?? 'this';
  throw configError(`checkpoint_store of the ${scheme}:// form is not implemented yet in this version of bridge; use a table name or file://<path>`);
}
