import path from 'node:path';
import type { CheckpointStore } from '../../checkpoint/envelope.js';
import { FileCheckpointStore } from '../../checkpoint/file-store.js';
import { resolveEndpoint } from '../../config/endpoint.js';
import { addSecret } from '../../config/redact.js';
import { parseUrl } from '../../config/url.js';
import { configError } from '../../core/errors.js';
import { specForScheme } from '../registry.js';
import { TableCheckpointStore } from './checkpoint-table.js';
import { openDatabase, type Database } from './database.js';
import { checkIdent, fitName } from './identifiers.js';
import { loadKind } from './kind.js';

const SQL_SCHEMES = new Set(['postgres', 'postgresql', 'mysql', 'mariadb']);

/** `<bucket>/<prefix>` of an object-store URL; credentials never come from the URL. */
function bucketAndPrefix(value: string, scheme: string): { bucket: string; prefix: string; account?: string } {
  const u = parseUrl(value);
  if (u.password !== undefined || (u.username !== undefined && scheme !== 'abfs'))
    throw configError(`a ${scheme}:// checkpoint_store takes its credentials from the environment, not from the URL; remove them from the URL`);
  if (!u.host) throw configError(`checkpoint_store ${scheme}:// needs a bucket: ${scheme}://<bucket>/<prefix>`);
  if (scheme === 'abfs' && u.username !== undefined) {
    // abfs://<container>@<account>.dfs.core.windows.net/<prefix>
    return { bucket: u.username, prefix: u.path, account: u.host.split('.')[0]! };
  }
  return { bucket: u.host, prefix: u.path };
}

/**
 * Contract §4.2 checkpoint_store resolution. Absent → bridge_cursors_<table> in the source; a bare
 * name or /<name> → that table in the source; file://<path> → a local JSON file; a PostgreSQL or
 * MySQL/MariaDB URL (optional /<table> after the database) → a table there; mongodb:// (optional
 * /<collection> after the database) → a collection; s3://, gs://, az://, abfs:// <bucket>/<prefix>
 * → objects. The default table or collection is bridge_cursors_<source table>.
 */
export async function resolveCheckpointStore(value: string | undefined, db: Database, table: string): Promise<CheckpointStore> {
  const store = await resolve(value, db, table);
  // checkpoint_store is a secret (it may name a private path, bucket or database): plans and summaries say only what kind it is.
  return value === undefined ? store : new Described(store, `checkpoint_store (${kindOf(value)})`);
}

function kindOf(value: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return 'a table in the source database';
  if (scheme === 'file') return 'a local file';
  if (SQL_SCHEMES.has(scheme)) return `a table in another ${scheme} database`;
  if (scheme.startsWith('mongodb')) return 'a MongoDB collection';
  return `${scheme}:// objects`;
}

/** A store shown under another description; `inner` keeps the real place (for tests and debugging, never printed). */
class Described implements CheckpointStore {
  constructor(
    readonly inner: CheckpointStore,
    readonly description: string,
  ) {}
  open(): Promise<void> {
    return this.inner.open();
  }
  load(key: string): Promise<string | undefined> {
    return this.inner.load(key);
  }
  put(key: string, text: string): Promise<void> {
    return this.inner.put(key, text);
  }
  swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    return this.inner.swap(key, expected, next);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function resolve(value: string | undefined, db: Database, table: string): Promise<CheckpointStore> {
  const d = db.dialect;
  const defaultName = (max: number): string => fitName(`bridge_cursors_${d.baseName(table)}`, max);
  if (value === undefined) {
    const schema = d.schemaOf(table);
    return new TableCheckpointStore(db, schema ? `${schema}.${defaultName(d.maxIdentLength)}` : defaultName(d.maxIdentLength), 'the source database');
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    const bare = value.startsWith('/') ? value.slice(1) : value;
    for (const p of bare.split('.')) checkIdent(p, 'checkpoint_store table', d.maxIdentLength);
    return new TableCheckpointStore(db, bare, 'the source database');
  }
  if (scheme === 'file') {
    const p = value.slice('file://'.length);
    if (p === '') throw configError('checkpoint_store=file:// needs a path, e.g. file:///var/lib/bridge/cursors.json');
    const file = path.resolve(decodeURIComponent(p));
    addSecret(file);
    addSecret(path.basename(file));
    return new FileCheckpointStore(file);
  }
  if (SQL_SCHEMES.has(scheme)) {
    const u = parseUrl(value);
    const [database, tableName, ...rest] = u.path.split('/');
    if (rest.length || !database) throw configError(`a ${scheme}:// checkpoint_store is <url>/<database>[/<table>]`);
    const query = u.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const base = u.base.slice(0, u.base.length - u.path.length) + database;
    const kind = specForScheme(scheme)!.schemes[scheme]!;
    const driver = await loadKind(kind);
    const name = tableName || fitName(`bridge_cursors_${d.baseName(table)}`, driver.dialect.maxIdentLength);
    const ep = resolveEndpoint(`${base}?table=${encodeURIComponent(name)}${query ? `&${query}` : ''}`, 'consumer', specForScheme);
    const opened = await openDatabase(ep, driver, () => {});
    return new TableCheckpointStore(opened.db, name, `an external ${kind} database`, opened.release);
  }
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') {
    const u = parseUrl(value);
    const [database, collection, ...rest] = u.path.split('/');
    if (rest.length || !database) throw configError(`a ${scheme}:// checkpoint_store is <url>/<database>[/<collection>]`);
    const q = value.indexOf('?');
    const url = u.base.slice(0, u.base.length - u.path.length) + database + (q >= 0 ? value.slice(q) : '');
    const { MongoCheckpointStore } = await import('../../checkpoint/mongo-store.js');
    return new MongoCheckpointStore(url, collection || defaultName(120));
  }
  if (scheme === 's3') {
    const { bucket, prefix } = bucketAndPrefix(value, scheme);
    return new (await import('../../checkpoint/s3-store.js')).S3CheckpointStore(bucket, prefix || defaultName(1024));
  }
  if (scheme === 'gs') {
    const { bucket, prefix } = bucketAndPrefix(value, scheme);
    return new (await import('../../checkpoint/gcs-store.js')).GcsCheckpointStore(bucket, prefix || defaultName(1024));
  }
  if (scheme === 'az' || scheme === 'abfs') {
    const { bucket, prefix, account } = bucketAndPrefix(value, scheme);
    return new (await import('../../checkpoint/azure-store.js')).AzureCheckpointStore(bucket, prefix || defaultName(1024), account);
  }
  throw configError(`checkpoint_store of the ${scheme}:// form is not supported: use a table name, file://, postgres://, mysql://, mongodb://, s3://, gs://, az:// or abfs://`);
}
