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
