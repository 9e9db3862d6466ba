import { BridgeError, configError, transientError } from '../core/errors.js';
import type { CheckpointStore } from './envelope.js';
import { objectKey } from './object-key.js';
import { optionalImport } from '../core/optional.js';

type ContainerClient = import('@azure/storage-blob').ContainerClient;

const status = (e: unknown): number | undefined => (e as { statusCode?: number }).statusCode;

/**
 * Positions as blobs `<prefix>/<cursor_id>.json` in an Azure Blob Storage container (`az://` and
 * `abfs://`). Credentials from AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT with
 * AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN; AZURE_STORAGE_BLOB_ENDPOINT overrides the endpoint
 * (Azurite). Leases use conditional writes on the blob's ETag.
 */
export class AzureCheckpointStore implements CheckpointStore {
  readonly description: string;
  private container!: ContainerClient;

  constructor(
    private readonly containerName: string,
    private readonly prefix: string,
    private readonly account: string | undefined,
  ) {
    this.description = `azure container ${containerName}${prefix ? ` under ${prefix}` : ''}`;
  }

  async open(): Promise<void> {
    const az = await optionalImport<typeof import('@azure/storage-blob')>('@azure/storage-blob', 'an Azure Blob checkpoint_store');
    const env = process.env;
    let service;
    if (env.AZURE_STORAGE_CONNECTION_STRING) service = az.BlobServiceClient.fromConnectionString(env.AZURE_STORAGE_CONNECTION_STRING);
    else {
      const account = this.account ?? env.AZURE_STORAGE_ACCOUNT;
      if (!account) throw configError('an az:// or abfs:// checkpoint_store needs AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN');
      const endpoint = env.AZURE_STORAGE_BLOB_ENDPOINT ?? `https://${account}.blob.core.windows.net`;
      if (env.AZURE_STORAGE_KEY) service = new az.BlobServiceClient(endpoint, new az.StorageSharedKeyCredential(account, env.AZURE_STORAGE_KEY));
      else if (env.AZURE_STORAGE_SAS_TOKEN) service = new az.BlobServiceClient(`${endpoint}?${env.AZURE_STORAGE_SAS_TOKEN.replace(/^\?/, '')}`);
      else throw configError('the Azure checkpoint_store needs AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN (or AZURE_STORAGE_CONNECTION_STRING)');
    }
    this.container = service.getContainerClient(this.containerName);
    try {
      await this.container.createIfNotExists();
    } catch (e) {
      const code = status(e);
      if (code === 403 || code === 401) throw new BridgeError('connect', `no access to azure container ${this.containerName}: check the credentials in the environment`, { cause: e });
      throw new BridgeError('connect', `cannot reach azure container ${this.containerName}: ${(e as Error).message}`, { cause: e });
    }
  }

  private blob(key: string) {
    return this.container.getBlockBlobClient(objectKey(this.prefix, key));
  }

  private async get(key: string): Promise<{ text: string; etag: string } | undefined> {
    try {
      const buf = await this.blob(key).downloadToBuffer();
      const props = await this.blob(key).getProperties();
      return { text: buf.toString('utf8'), etag: props.etag ?? '' };
    } catch (e) {
      if (status(e) === 404) return undefined;
      throw transientError(`azure: ${(e as Error).message}`, e);
    }
  }

  async load(key: string): Promise<string | undefined> {
    return (await this.get(key))?.text;
  }

  async put(key: string, text: string): Promise<void> {
    try {
      await this.blob(key).upload(text, Buffer.byteLength(text), { blobHTTPHeaders: { blobContentType: 'application/json' } });
    } catch (e) {
      throw transientError(`azure: ${(e as Error).message}`, e);
    }
  }

  async swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    const current = await this.get(key);
    if (current?.text !== expected) return false;
    const conditions = current ? { ifMatch: current.etag } : { ifNoneMatch: '*' };
    try {
      if (next === undefined) await this.blob(key).delete({ conditions });
      else await this.blob(key).upload(next, Buffer.byteLength(next), { conditions, blobHTTPHeaders: { blobContentType: 'application/json' } });
      return true;
    } catch (e) {
      if (status(e) === 412 || status(e) === 409) return false;
      throw transientError(`azure: ${(e as Error).message}`, e);
    }
  }

  async close(): Promise<void> {}
}
