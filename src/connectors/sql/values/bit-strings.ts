/**
 * Bit strings between kinds: PostgreSQL bit(n)/varbit(n) are text of 0s and 1s (n of them, or up
 * to n); MySQL BIT(n) is bytes, the number right-aligned. A value keeps its bits: leading bits
 * dropped to fit must be zeros, and a fixed width is padded with leading zeros.
 */
export const BIT_STRING = /^[01]*$/;

/** `10101` → 0x15 (as many bytes as `bits` needs); undefined when it has a 1 beyond `bits`. */
export function bitsToBytes(s: string, bits: number): Buffer | undefined {
  const first = s.indexOf('1');
  if (first >= 0 && s.length - first > bits) return undefined;
  const out = Buffer.alloc(Math.ceil(bits / 8));
  for (let i = s.length - 1, bit = 0; i >= 0 && bit < bits; i--, bit++) if (s.charCodeAt(i) === 49) out[out.length - 1 - (bit >> 3)]! |= 1 << (bit & 7);
  return out;
}

/**
 * Bytes as `width` bits (fixed: exactly that many; varying: all of the bytes' bits, at most `width`).
 * undefined when a 1 would be dropped.
 */
export function bytesToBits(b: Buffer, width: number | undefined, fixed: boolean): string | undefined {
  let s = '';
  for (const x of b) s += x.toString(2).padStart(8, '0');
  if (width === undefined) return s;
  if (s.length > width) {
    if (s.slice(0, s.length - width).includes('1')) return undefined;
    return s.slice(s.length - width);
  }
  return fixed ? s.padStart(width, '0') : s;
}

/** A bit-string column of varying width (PostgreSQL `bit varying(n)`/varbit), from its declared type. */
export const varyingBits = (dbType: string): boolean => /varying|varbit/i.test(dbType);
