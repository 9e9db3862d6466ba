/** `<prefix>/<key>.json`, with the prefix normalised to end in one slash (or be empty). */
export function objectKey(prefix: string, key: string): string {
  const p = prefix.replace(/^\/+|\/+$/g, '');
  return `${p ? `${p}/` : ''}${encodeURIComponent(key)}.json`;
}
