import { BridgeError, transientError } from '../core/errors.js';
import type { CheckpointStore } from './envelope.js';
import { optionalImport } from '../core/optional.js';

type Collection = import('mongodb').Collection<{ _id: string; value: string; updated_at: Date }>;
type MongoClient = import('mongodb').MongoClient;

/**
 * Positions as documents `{ _id: <cursor_id>, value, updated_at }` in a MongoDB collection
 * (default bridge_cursors_<table>). Leases use conditional updates on the stored value.
 */
export class MongoCheckpointStore implements CheckpointStore {
  readonly description: string;
  private client: MongoClient | undefined;
  private coll!: Collection;

  constructor(
    private readonly url: string,
    private readonly collection: string,
  ) {
    this.description = `mongodb collection ${collection}`;
  }

  async open(): Promise<void> {
    const { MongoClient } = await optionalImport<typeof import('mongodb')>('mongodb', 'a mongodb:// checkpoint_store');
    try {
      this.client = await MongoClient.connect(this.url, { serverSelectionTimeoutMS: 10_000 });
    } catch (e) {
      throw new BridgeError('connect', `cannot connect to the MongoDB checkpoint store: ${(e as Error).message}`, { cause: e });
    }
    this.coll = this.client.db().collection(this.collection);
  }

  async load(key: string): Promise<string | undefined> {
    try {
      return (await this.coll.findOne({ _id: key }))?.value;
    } catch (e) {
      throw transientError(`mongodb: ${(e as Error).message}`, e);
    }
  }

  async put(key: string, text: string): Promise<void> {
    try {
      await this.coll.updateOne({ _id: key }, { $set: { value: text, updated_at: new Date() } }, { upsert: true });
    } catch (e) {
      throw transientError(`mongodb: ${(e as Error).message}`, e);
    }
  }

  async swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    try {
      if (expected === undefined) {
        if (next === undefined) return (await this.coll.findOne({ _id: key })) === null;
        await this.coll.insertOne({ _id: key, value: next, updated_at: new Date() });
        return true;
      }
      if (next === undefined) return (await this.coll.deleteOne({ _id: key, value: expected })).deletedCount === 1;
      return (await this.coll.updateOne({ _id: key, value: expected }, { $set: { value: next, updated_at: new Date() } })).matchedCount === 1;
    } catch (e) {
      if ((e as { code?: number }).code === 11000) return false; // another process inserted it first
      throw transientError(`mongodb: ${(e as Error).message}`, e);
    }
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
