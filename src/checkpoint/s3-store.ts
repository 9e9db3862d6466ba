import { BridgeError, configError, transientError } from '../core/errors.js';
import type { CheckpointStore } from './envelope.js';
import { objectKey } from './object-key.js';
import { optionalImport } from '../core/optional.js';

type S3 = typeof import('@aws-sdk/client-s3');

const status = (e: unknown): number | undefined => (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/**
 * Positions as objects `<prefix>/<cursor_id>.json` in an S3 bucket. Credentials and region come
 * from the AWS SDK's usual environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_REGION, …); an endpoint
 * override (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) selects path-style addressing, for MinIO and
 * other S3-compatible servers. Leases use conditional writes (If-Match / If-None-Match).
 */
export class S3CheckpointStore implements CheckpointStore {
  readonly description: string;
  private sdk!: S3;
  private client!: InstanceType<S3['S3Client']>;

  constructor(
    private readonly bucket: string,
    private readonly prefix: string,
  ) {
    this.description = `s3 bucket ${bucket}${prefix ? ` under ${prefix}` : ''}`;
  }

  async open(): Promise<void> {
    // The SDK version is pinned by the lockfile; its notice about future Node versions is not the user's business.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.sdk = await optionalImport<S3>('@aws-sdk/client-s3', 'an s3:// checkpoint_store');
    const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
    this.client = new this.sdk.S3Client({
      region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    });
    try {
      await this.client.send(new this.sdk.HeadBucketCommand({ Bucket: this.bucket }));
    } catch (e) {
      const code = status(e);
      if (code === 404) throw configError(`s3 bucket ${this.bucket} does not exist: create it, or fix checkpoint_store`);
      if (code === 403 || code === 401) throw new BridgeError('connect', `no access to s3 bucket ${this.bucket}: check the AWS credentials in the environment`, { cause: e });
      throw new BridgeError('connect', `cannot reach s3 bucket ${this.bucket}: ${(e as Error).message}`, { cause: e });
    }
  }

  private async get(key: string): Promise<{ text: string; etag: string } | undefined> {
    try {
      const r = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: objectKey(this.prefix, key) }));
      return { text: await r.Body!.transformToString('utf8'), etag: r.ETag ?? '' };
    } catch (e) {
      if (status(e) === 404 || (e as Error).name === 'NoSuchKey') return undefined;
      throw transientError(`s3: ${(e as Error).message}`, e);
    }
  }

  /**
   * Positions alternate between `<key>` and `<key>~b`, and the newer readable one wins: some
   * S3-compatible servers do not make a PUT atomic, and a writer killed mid-request would
   * otherwise leave the only copy torn. Then at most one position is lost (a re-delivery).
   */
  async load(key: string): Promise<string | undefined> {
    const [a, b] = await Promise.all([this.get(key), this.get(`${key}~b`)]);
    const stamp = (t: string | undefined): number => {
      try {
        return t === undefined ? -1 : Number((JSON.parse(t) as { updated_at_ms?: number }).updated_at_ms ?? 0);
      } catch {
        return -2;
      }
    };
    const [sa, sb] = [stamp(a?.text), stamp(b?.text)];
    if (sa === -2 && sb < 0) return a?.text;
    return sb > sa ? b?.text : a?.text;
  }

  private flip = new Map<string, boolean>();

  async put(key: string, text: string): Promise<void> {
    const second = this.flip.get(key) ?? false;
    this.flip.set(key, !second);
    try {
      await this.client.send(new this.sdk.PutObjectCommand({ Bucket: this.bucket, Key: objectKey(this.prefix, second ? `${key}~b` : key), Body: text, ContentType: 'application/json' }));
    } catch (e) {
      throw transientError(`s3: ${(e as Error).message}`, e);
    }
  }

  async swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    const current = await this.get(key);
    if (current?.text !== expected) return false;
    const Key = objectKey(this.prefix, key);
    try {
      if (next === undefined) await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.bucket, Key }));
      else
        await this.client.send(
          new this.sdk.PutObjectCommand({ Bucket: this.bucket, Key, Body: next, ContentType: 'application/json', ...(current ? { IfMatch: current.etag } : { IfNoneMatch: '*' }) }),
        );
      return true;
    } catch (e) {
      if (status(e) === 412 || status(e) === 409) return false;
      throw transientError(`s3: ${(e as Error).message}`, e);
    }
  }

  async close(): Promise<void> {
    this.client?.destroy();
  }
}
