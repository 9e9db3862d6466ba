import path from 'node:path';
import { addSecret } from '../config/redact.js';
import { parseUrl } from '../config/url.js';
import { configError } from '../core/errors.js';
import type { CheckpointStore } from './envelope.js';
import { FileCheckpointStore } from './file-store.js';

/** The stores that are tables of a database: the connector that read the source provides them. */
export interface TableStores {
  /** `bridge_cursors_<source table>`, fitted to a name length. */
  defaultName(maxLength: number): string;
  /** A table in the source database: the default name when `name` is undefined. */
  inSource(name: string | undefined): CheckpointStore;
  /** Whether a URL scheme names a database server that can hold the table. */
  isDatabase(scheme: string): boolean;
  /** A table in another database (`<url>/<database>[/<table>]`). */
  inDatabase(scheme: string, value: string): Promise<CheckpointStore>;
}

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

const schemeOf = (value: string): string | undefined => /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();

/**
 * Contract §4.2 checkpoint_store resolution. Absent → bridge_cursors_<table> in the source; a bare
 * name or /<name> → that table in the source; file://<path> → a local JSON file; a database URL
 * (optional /<table> after the database) → a table there; mongodb:// (optional /<collection> after
 * the database) → a collection; s3://, gs://, az://, abfs:// <bucket>/<prefix> → objects. The
 * default table, collection or prefix is bridge_cursors_<source table>.
 */
export async function resolveCheckpointStore(value: string | undefined, tables: TableStores): Promise<CheckpointStore> {
  const store = await resolve(value, tables);
  // checkpoint_store is a secret (it may name a private path, bucket or database): plans and summaries say only what kind it is.
  return value === undefined ? store : new Described(store, `checkpoint_store (${kindOf(value, tables)})`);
}

function kindOf(value: string, tables: TableStores): string {
  const scheme = schemeOf(value);
  if (scheme === undefined) return 'a table in the source database';
  if (scheme === 'file') return 'a local file';
  if (tables.isDatabase(scheme)) return `a table in another ${scheme} database`;
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

async function resolve(value: string | undefined, tables: TableStores): Promise<CheckpointStore> {
  if (value === undefined) return tables.inSource(undefined);
  const scheme = schemeOf(value);
  if (scheme === undefined) return tables.inSource(value.startsWith('/') ? value.slice(1) : value);
  if (scheme === 'file') {
    const p = value.slice('file://'.length);
    if (p === '') throw configError('checkpoint_store=file:// needs a path, e.g. file:///var/lib/bridge/cursors.json');
    const file = path.resolve(decodeURIComponent(p));
    addSecret(file);
    addSecret(path.basename(file));
    return new FileCheckpointStore(file);
  }
  if (tables.isDatabase(scheme)) return tables.inDatabase(scheme, value);
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') {
    const u = parseUrl(value);
    const [database, collection, ...rest] = u.path.split('/');
    if (rest.length || !database) throw configError(`a ${scheme}:// checkpoint_store is <url>/<database>[/<collection>]`);
    const q = value.indexOf('?');
    const url = u.base.slice(0, u.base.length - u.path.length) + database + (q >= 0 ? value.slice(q) : '');
    const { MongoCheckpointStore } = await import('./mongo-store.js');
    return new MongoCheckpointStore(url, collection || tables.defaultName(120));
  }
  if (scheme === 's3') {
    const { bucket, prefix } = bucketAndPrefix(value, scheme);
    return new (await import('./s3-store.js')).S3CheckpointStore(bucket, prefix || tables.defaultName(1024));
  }
  if (scheme === 'gs') {
    const { bucket, prefix } = bucketAndPrefix(value, scheme);
    return new (await import('./gcs-store.js')).GcsCheckpointStore(bucket, prefix || tables.defaultName(1024));
  }
  if (scheme === 'az' || scheme === 'abfs') {
    const { bucket, prefix, account } = bucketAndPrefix(value, scheme);
    return new (await import('./azure-store.js')).AzureCheckpointStore(bucket, prefix || tables.defaultName(1024), account);
  }
  throw configError(`checkpoint_store of the ${scheme}:// form is not supported: use a table name, file://, postgres://, mysql://, mongodb://, s3://, gs://, az:// or abfs://`);
}
