import { describe, expect, it } from 'vitest';
import { objectKey } from '../../src/checkpoint/object-key.js';
import { postgresKind } from '../../src/connectors/postgres/index.js';
import { sourceCheckpointStore as resolveCheckpointStore } from '../../src/connectors/sql/position/checkpoint-store.js';
import type { Database } from '../../src/connectors/sql/database.js';
import { BridgeError } from '../../src/core/errors.js';

/** Resolution of the forms that need no server (gs://, mongodb://, az://, s3://): which store, which place. */
const db = { dialect: postgresKind.dialect } as unknown as Database;
const described = (v: string | undefined) => resolveCheckpointStore(v, db, 'public.events');
/** The place the store really uses (what is printed says only its kind: checkpoint_store is a secret). */
const resolve = async (v: string | undefined) => {
  const s = await described(v);
  return (s as unknown as { inner?: { description: string } }).inner ?? s;
};

describe('checkpoint_store resolution (contract §4.2)', () => {
  it('object stores: bucket and prefix, default name bridge_cursors_<table>', async () => {
    expect((await resolve('gs://state/prod/cursors')).description).toBe('gcs bucket state under prod/cursors');
    expect((await resolve('gs://state')).description).toBe('gcs bucket state under bridge_cursors_events');
    expect((await resolve('s3://state/p')).description).toBe('s3 bucket state under p');
    expect((await resolve('az://container/p')).description).toBe('azure container container under p');
    expect((await resolve('abfs://lake@acct.dfs.core.windows.net/x')).description).toBe('azure container lake under x');
    expect(objectKey('prod/cursors/', 'to lake')).toBe('prod/cursors/to%20lake.json');
    expect(objectKey('', 'a')).toBe('a.json');
  });

  it('document store: database and optional collection', async () => {
    expect((await resolve('mongodb://user:pw@mongo:27017/bridge/positions')).description).toBe('mongodb collection positions');
    expect((await resolve('mongodb://mongo/bridge')).description).toBe('mongodb collection bridge_cursors_events');
  });

  it('tables in the source: default, bare name, /name; bad names and unknown schemes are config errors', async () => {
    expect((await resolve(undefined)).description).toBe('table public.bridge_cursors_events in the source database');
    expect((await resolve('positions')).description).toBe('table positions in the source database');
    expect((await resolve('/positions')).description).toBe('table positions in the source database');
    await expect(resolve('bad"name')).rejects.toBeInstanceOf(BridgeError);
    await expect(resolve('ftp://x/y')).rejects.toThrow(/ftp:\/\/ form is not supported/);
    await expect(resolve('gs://key:secret@bucket/p')).rejects.toThrow(/credentials from the environment/);
  });

  it('what plans and summaries print names the kind of store, never its value', async () => {
    expect((await described('gs://state/prod/cursors')).description).toBe('checkpoint_store (gs:// objects)');
    expect((await described('mongodb://user:pw@mongo:27017/bridge/positions')).description).toBe('checkpoint_store (a MongoDB collection)');
    expect((await described('positions')).description).toBe('checkpoint_store (a table in the source database)');
    expect((await described(undefined)).description).toBe('table public.bridge_cursors_events in the source database');
  });
});
