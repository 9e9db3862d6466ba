import { BridgeError, configError, transientError } from '../core/errors.js';
import type { CheckpointStore } from './envelope.js';
import { objectKey } from './object-key.js';
import { optionalImport } from '../core/optional.js';

type Bucket = import('@google-cloud/storage').Bucket;

const status = (e: unknown): number | undefined => (e as { code?: number }).code;

/**
 * Positions as objects `<prefix>/<cursor_id>.json` in a Google Cloud Storage bucket. Credentials
 * come from Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud, metadata
 * server); STORAGE_EMULATOR_HOST points it at an emulator. Leases use generation preconditions.
 */
export class GcsCheckpointStore implements CheckpointStore {
  readonly description: string;
  private bucket!: Bucket;

  constructor(
    private readonly bucketName: string,
    private readonly prefix: string,
  ) {
    this.description = `gcs bucket ${bucketName}${prefix ? ` under ${prefix}` : ''}`;
  }

  async open(): Promise<void> {
    const { Storage } = await optionalImport<typeof import('@google-cloud/storage')>('@google-cloud/storage', 'a gs:// checkpoint_store');
    const emulator = process.env.STORAGE_EMULATOR_HOST;
    const storage = new Storage(emulator ? { apiEndpoint: emulator, projectId: process.env.GOOGLE_CLOUD_PROJECT ?? 'bridge' } : {});
    this.bucket = storage.bucket(this.bucketName);
    try {
      const [exists] = await this.bucket.exists();
      if (!exists) throw configError(`gcs bucket ${this.bucketName} does not exist: create it, or fix checkpoint_store`);
    } catch (e) {
      if (e instanceof BridgeError) throw e;
      throw new BridgeError('connect', `cannot reach gcs bucket ${this.bucketName}: ${(e as Error).message}`, { cause: e });
    }
  }

  private async get(key: string): Promise<{ text: string; generation: number } | undefined> {
    const file = this.bucket.file(objectKey(this.prefix, key));
    try {
      const [buf] = await file.download();
      const [meta] = await file.getMetadata();
      return { text: buf.toString('utf8'), generation: Number(meta.generation) };
    } catch (e) {
      if (status(e) === 404) return undefined;
      throw transientError(`gcs: ${(e as Error).message}`, e);
    }
  }

  async load(key: string): Promise<string | undefined> {
    return (await this.get(key))?.text;
  }

  async put(key: string, text: string): Promise<void> {
    try {
      await this.bucket.file(objectKey(this.prefix, key)).save(text, { contentType: 'application/json', resumable: false });
    } catch (e) {
      throw transientError(`gcs: ${(e as Error).message}`, e);
    }
  }

  async swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    const current = await this.get(key);
    if (current?.text !== expected) return false;
    const file = this.bucket.file(objectKey(this.prefix, key));
    const ifGenerationMatch = current ? current.generation : 0;
    try {
      if (next === undefined) await file.delete({ ifGenerationMatch });
      else await file.save(next, { contentType: 'application/json', resumable: false, preconditionOpts: { ifGenerationMatch } });
      return true;
    } catch (e) {
      if (status(e) === 412) return false;
      throw transientError(`gcs: ${(e as Error).message}`, e);
    }
  }

  async close(): Promise<void> {}
}
