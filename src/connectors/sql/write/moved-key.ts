/**
 * A key= merge that matched a stored row whose key is not the message's byte for byte: the
 * target compares them equal (a case-insensitive collation, citext, MySQL's padding), or MySQL
 * matched the row by another unique key. Written, the message would change that row, and a source
 * row would be lost: each kind's merge raises an error carrying the two keys, and this is the
 * reason the message is refused for (exit 4, or the dead letter).
 */
export function movedKeyReason(field: string, stored: string, given: string, why: string, fix: string): string {
  return `field ${field}: the row this message's key matched holds ${field} ${stored}, not ${given} (${why}): writing it would change that row; ${fix}`;
}

/** Separates the field and the two keys in the text a guard raises: ␟ (U+241F), printed as it is by every server's error text. */
export const MOVED_SEPARATOR = '\u241f';

/** The field and the two keys a guard's text holds (`bridge: field␟stored␟given`), or undefined. */
export function movedKeyParts(text: string): [string, string, string] | undefined {
  if (!text.startsWith('bridge: ')) return undefined;
  const parts = text.slice(8).split(MOVED_SEPARATOR);
  return parts.length === 3 ? [parts[0]!, `'${parts[1]}'`, `'${parts[2]}'`] : undefined;
}
