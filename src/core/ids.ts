import { createHash, randomFillSync } from 'node:crypto';

/** Message ids are unsigned 128-bit numbers shown as 32 lowercase hex digits. */
export const formatId = (id: bigint): string => id.toString(16).padStart(32, '0');

// Random bytes are drawn 64 KiB at a time: one system call per 6,500 ids instead of one per id.
const pool = Buffer.alloc(65536);
let poolAt = pool.length;

/** A new UUIDv7 (time-ordered) as 32 lowercase hex digits: written into the random pool in place. */
export function newIdHex(): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 16;
  const ms = Date.now();
  pool.writeUIntBE(Math.floor(ms / 65536), at, 4);
  pool.writeUInt16BE(ms % 65536, at + 4);
  pool[at + 6] = (pool[at + 6]! & 0x0f) | 0x70;
  pool[at + 8] = (pool[at + 8]! & 0x3f) | 0x80;
  return pool.toString('hex', at, at + 16);
}

/** A new UUIDv7 (time-ordered) as a 128-bit number. */
export function newId(): bigint {
  return BigInt('0x' + newIdHex());
}

/** A deterministic id, so that a row delivered again after a restart keeps its id. */
export function idFromSeed(seed: string): bigint {
  return BigInt('0x' + createHash('sha256').update(seed).digest('hex').slice(0, 32));
}

/** Parses a message-id header: a UUID, else hex, else decimal; undefined when none fits. */
export function parseId(text: string): bigint | undefined {
  const t = text.trim();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t)) return BigInt('0x' + t.replace(/-/g, ''));
  // 32 hex digits is the form bridge itself sends, even when every digit is 0-9: an id crosses two bridges unchanged.
  if (/^[0-9a-f]{32}$/i.test(t)) return BigInt('0x' + t);
  if (/^(0x)?[0-9a-f]{1,32}$/i.test(t) && /[a-f]|^0x/i.test(t)) return BigInt(t.startsWith('0x') || t.startsWith('0X') ? t : '0x' + t);
  if (/^[0-9]{1,39}$/.test(t)) {
    const v = BigInt(t);
    return v < 1n << 128n ? v : undefined;
  }
  return undefined;
}
