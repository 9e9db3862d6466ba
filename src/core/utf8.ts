import { isUtf8 } from 'node:buffer';

/**
 * Text decoded as UTF-8 has U+FFFD where its bytes were not UTF-8 (Buffer#toString, better-sqlite3):
 * where the bytes and the UTF-8 of the decoded text part is the first byte that could not be read.
 * Returns the bytes from there, as hex ('e9 22 7d'), for an error that shows them.
 */
export function unreadBytes(bytes: Buffer, decoded: string, n = 8): string {
  const again = Buffer.from(decoded, 'utf8');
  let i = 0;
  while (i < bytes.length && bytes[i] === again[i]) i++;
  const shown = [...bytes.subarray(i, i + n)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  return bytes.length > i + n ? `${shown} …` : shown;
}

/**
 * The bytes that could not be read (unreadBytes) when `decoded`, their toString('utf8'), replaced
 * some; undefined when they are UTF-8. Only a string holding U+FFFD can be a replacement, and a real
 * U+FFFD is written ef bf bd: the common case costs one scan for U+FFFD.
 */
export function notUtf8(bytes: Buffer, decoded: string): string | undefined {
  return decoded.includes('\uFFFD') && !isUtf8(bytes) ? unreadBytes(bytes, decoded) : undefined;
}
