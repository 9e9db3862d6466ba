import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

/** Body codecs of the HTTP connector. zstd and lz4 are not in Node 20's zlib: native libraries, loaded on first use. */
export type Codec = 'gzip' | 'zstd' | 'lz4';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

type Zstd = typeof import('zstd-napi');
type Lz4 = typeof import('lz4-napi');
let zstdLib: Zstd | undefined;
let lz4Lib: Lz4 | undefined;
const zstd = async (): Promise<Zstd> => (zstdLib ??= await import('zstd-napi'));
const lz4 = async (): Promise<Lz4> => (lz4Lib ??= (await import('lz4-napi')) as unknown as Lz4);

export async function compress(codec: Codec, body: Buffer): Promise<Buffer> {
  switch (codec) {
    case 'gzip':
      return gzipAsync(body);
    case 'zstd':
      return (await zstd()).compress(body);
    case 'lz4':
      // The LZ4 frame format (decisions §8), so any lz4 tool can read it.
      return (await lz4()).compressFrame(body);
  }
}

/** Undoes a Content-Encoding; throws on an unknown codec or a corrupt body (answered 400). */
export async function decompress(encoding: string, body: Buffer, maxBytes: number): Promise<Buffer> {
  const e = encoding.trim().toLowerCase();
  let out: Buffer;
  if (e === '' || e === 'identity') return body;
  if (e === 'gzip' || e === 'x-gzip') {
    try {
      out = await gunzipAsync(body, { maxOutputLength: maxBytes + 1 });
    } catch (err) {
      // A decompression bomb stops at the limit: that is a body too large, not a broken one.
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLarge();
      throw err;
    }
  }
  else if (e === 'zstd') out = (await zstd()).decompress(body);
  else if (e === 'lz4') out = await (await lz4()).decompressFrame(body);
  else throw new Error(`unsupported Content-Encoding ${encoding}`);
  if (out.length > maxBytes) throw new BodyTooLarge();
  return out;
}

export class BodyTooLarge extends Error {
  constructor() {
    super('request body is larger than max_body_bytes');
  }
}

/** The best codec an Accept-Encoding header allows: zstd, then gzip; lz4 only when asked for by name. */
export function negotiate(accept: string | undefined): Codec | undefined {
  if (!accept) return undefined;
  const allowed = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    allowed.set(name!, q ? Number(q.slice(2)) : 1);
  }
  const ok = (c: string): boolean => (allowed.get(c) ?? (allowed.get('*') !== undefined && c !== 'lz4' ? allowed.get('*')! : 0)) > 0;
  for (const c of ['zstd', 'gzip', 'lz4'] as const) if (ok(c)) return c;
  return undefined;
}
