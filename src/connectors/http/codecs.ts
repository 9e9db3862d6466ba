import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { BodyTooLarge } from './body-limit.js';
import { decodeLz4Frames } from './lz4-frame.js';
import { optionalImport } from '../../core/optional.js';

export { BodyTooLarge } from './body-limit.js';

/** Body codecs of the HTTP connector. zstd and lz4 are not in Node 20's zlib: native libraries, loaded on first use. */
export type Codec = 'gzip' | 'zstd' | 'lz4';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

type Zstd = typeof import('zstd-napi');
type Lz4 = typeof import('lz4-napi');
interface DCtx {
  decompressStream(out: Buffer, input: Buffer): [number, number, number];
  setParameter(param: number, value: number): void;
}
type ZstdBinding = { DCtx: new () => DCtx; DParameter: { windowLogMax: number } };
let zstdLib: Zstd | undefined;
let lz4Lib: Lz4 | undefined;
let zstdBinding: ZstdBinding | undefined;
const zstd = async (): Promise<Zstd> => (zstdLib ??= await optionalImport<Zstd>('zstd-napi', 'zstd compression'));
const lz4 = async (): Promise<Lz4> => (lz4Lib ??= await optionalImport<Lz4>('lz4-napi', 'lz4 compression'));
const binding = (): ZstdBinding => (zstdBinding ??= createRequire(import.meta.url)('zstd-napi/binding') as ZstdBinding);

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

/** zstd window sizes beyond 8 MiB are refused (RFC 8878 §3.1.1.1.2's limit for HTTP): the decoder's own memory stays small. */
const ZSTD_WINDOW_LOG_MAX = 23;
const ZSTD_CHUNK = 128 * 1024;

/**
 * zstd, streamed into chunks and counted as it goes: the frame's declared content size is not
 * trusted (a 60 KB body can declare, and expand to, gigabytes), so memory stays max + one chunk.
 */
function zstdDecompress(body: Buffer, maxBytes: number): Buffer {
  const b = binding();
  const ctx = new b.DCtx();
  ctx.setParameter(b.DParameter.windowLogMax, ZSTD_WINDOW_LOG_MAX);
  const chunks: Buffer[] = [];
  let total = 0;
  let input = body;
  for (;;) {
    const out = Buffer.allocUnsafe(ZSTD_CHUNK);
    const [left, produced, consumed] = ctx.decompressStream(out, input);
    total += produced;
    if (total > maxBytes) throw new BodyTooLarge();
    if (produced) chunks.push(out.subarray(0, produced));
    input = input.subarray(consumed);
    // Done when the input is used up and the decoder has nothing more to flush.
    if (input.length === 0 && produced < ZSTD_CHUNK) {
      if (left !== 0) throw new Error('truncated zstd frame');
      break;
    }
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/** Undoes a Content-Encoding within `maxBytes`; throws BodyTooLarge past it, and on an unknown codec or a corrupt body (400). */
export async function decompress(encoding: string, body: Buffer, maxBytes: number): Promise<Buffer> {
  const e = encoding.trim().toLowerCase();
  if (e === '' || e === 'identity') return body;
  if (e === 'gzip' || e === 'x-gzip') {
    try {
      return await gunzipAsync(body, { maxOutputLength: maxBytes + 1 }).then((out) => {
        if (out.length > maxBytes) throw new BodyTooLarge();
        return out;
      });
    } catch (err) {
      // A decompression bomb stops at the limit: that is a body too large, not a broken one.
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLarge();
      throw err;
    }
  }
  if (e === 'zstd') return zstdDecompress(body, maxBytes);
  if (e === 'lz4') return decodeLz4Frames(body, maxBytes);
  throw new UnsupportedCoding(encoding);
}

/**
 * The codec an Accept-Encoding header ranks highest (q-values; on a tie zstd, then gzip); lz4 only
 * when asked for by name (it is not a registered HTTP coding).
 */
export function negotiate(accept: string | undefined): Codec | undefined {
  if (!accept) return undefined;
  const allowed = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    allowed.set(name!.trim(), Number.isFinite(value) ? value : 0);
  }
  const weight = (c: Codec): number => allowed.get(c) ?? (c !== 'lz4' ? (allowed.get('*') ?? 0) : 0);
  let best: Codec | undefined;
  for (const c of ['zstd', 'gzip', 'lz4'] as const) if (weight(c) > 0 && (best === undefined || weight(c) > weight(best))) best = c;
  return best;
}

/** The codings a listener reads (Content-Encoding of a request), as an Accept-Encoding answer names them. */
export const READ_CODINGS = 'gzip, zstd, lz4';

/** A request body in a coding the listener does not read: the client's to change (415), not a broken body (400). */
export class UnsupportedCoding extends Error {
  constructor(encoding: string) {
    super(`Content-Encoding ${encoding} is not one this listener reads (${READ_CODINGS})`);
  }
}
