import type { CheckpointStore } from '../../../checkpoint/envelope.js';
import { resolveCheckpointStore, type TableStores } from '../../../checkpoint/resolve.js';
import { resolveEndpoint } from '../../../config/endpoint.js';
import { parseUrl } from '../../../config/url.js';
import { configError } from '../../../core/errors.js';
import { kindEntry } from '../../kinds.js';
import { specForScheme } from '../../registry.js';
import { TableCheckpointStore } from './checkpoint-table.js';
import type { Database } from '../database.js';
import { openDatabase } from '../open-database.js';
import { checkIdent, fitName } from '../identifiers.js';
import { loadKind } from '../kind.js';

/** checkpoint_store for a database source: the table forms are tables of this (or another) database. */
export function sourceCheckpointStore(value: string | undefined, db: Database, table: string): Promise<CheckpointStore> {
  return resolveCheckpointStore(value, tableStores(db, table));
}

function tableStores(db: Database, table: string): TableStores {
  const d = db.dialect;
  const defaultName = (max: number): string => fitName(`bridge_cursors_${d.baseName(table)}`, max);
  const schemeKind = (scheme: string): string | undefined => specForScheme(scheme)?.schemes[scheme];
  return {
    defaultName,
    inSource(name) {
      if (name === undefined) {
        const schema = d.schemaOf(table);
        return new TableCheckpointStore(db, schema ? `${schema}.${defaultName(d.maxIdentLength)}` : defaultName(d.maxIdentLength), 'the source database');
      }
      for (const p of name.split('.')) checkIdent(p, 'checkpoint_store table', d.maxIdentLength);
      return new TableCheckpointStore(db, name, 'the source database');
    },
    isDatabase: (scheme) => kindEntry(schemeKind(scheme) ?? '')?.server === true,
    async inDatabase(scheme, value) {
      const u = parseUrl(value);
      const [database, tableName, ...rest] = u.path.split('/');
      if (rest.length || !database) throw configError(`a ${scheme}:// checkpoint_store is <url>/<database>[/<table>]`);
      const query = u.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
      const base = u.base.slice(0, u.base.length - u.path.length) + database;
      const kind = schemeKind(scheme)!;
      const driver = await loadKind(kind);
      const name = tableName || defaultName(driver.dialect.maxIdentLength);
      const ep = resolveEndpoint(`${base}?table=${encodeURIComponent(name)}${query ? `&${query}` : ''}`, 'consumer', specForScheme);
      const opened = await openDatabase(ep, driver, () => {});
      return new TableCheckpointStore(opened.db, name, `an external ${kind} database`, opened.release);
    },
  };
}
