/** The top-level fields of a JSON object payload, each kept as its exact source text. */
export type FieldKind = 'string' | 'number' | 'true' | 'false' | 'null' | 'object' | 'array';

export interface RawField {
  kind: FieldKind;
  /** Exact JSON text of the value (`30.00` stays `30.00`, objects keep their spacing). */
  raw: string;
  /** The unescaped string of a string field, when already known (rows from SQL sources). */
  text?: string;
}

/** Field lookup of a payload: a scanned JSON object, or a view over a source row. */
export interface Fields extends Iterable<[string, RawField]> {
  get(name: string): RawField | undefined;
}

const WS = new Set([32, 9, 10, 13]);

/** Index just after the string starting at `i` (which is a quote). */
function skipString(s: string, i: number): number {
  for (let j = i + 1; ; ) {
    const q = s.indexOf('"', j);
    if (q < 0) throw new Error('unterminated string');
    let bs = 0;
    for (let k = q - 1; k > i && s.charCodeAt(k) === 92; k--) bs++;
    if (bs % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * Index just after the nested object/array starting at `i`, respecting strings. A loop over char
 * codes: a regex jumping between structural characters allocated a match per character (the
 * largest allocation of a busy listener).
 */
function skipNested(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 34) j = skipString(s, j) - 1;
    else if (c === 123 || c === 91) depth++;
    else if ((c === 125 || c === 93) && --depth === 0) return j + 1;
  }
  throw new Error('unterminated object or array');
}

const skipWs = (s: string, i: number): number => {
  while (i < s.length && WS.has(s.charCodeAt(i))) i++;
  return i;
};

/**
 * Scans a JSON object's top level without building it: numbers, nested objects and arrays keep
 * their exact text, which JSON.parse would lose (`30.00` → 30, integers beyond 2^53 rounded).
 * Returns undefined when the payload is not a JSON object. Nested values are checked only for
 * balanced brackets; the database checks JSON it stores.
 */
export function scanFields(text: string): Fields | undefined {
  const out = new Map<string, RawField>();
  try {
    let i = skipWs(text, 0);
    if (text.charCodeAt(i) !== 123) return undefined;
    i = skipWs(text, i + 1);
    if (text.charCodeAt(i) === 125) return skipWs(text, i + 1) === text.length ? out : undefined;
    for (;;) {
      if (text.charCodeAt(i) !== 34) return undefined;
      const keyEnd = skipString(text, i);
      const keyRaw = text.slice(i + 1, keyEnd - 1);
      const key = keyRaw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : keyRaw;
      i = skipWs(text, keyEnd);
      if (text.charCodeAt(i) !== 58) return undefined;
      i = skipWs(text, i + 1);
      const c = text.charCodeAt(i);
      let end: number;
      let kind: FieldKind;
      if (c === 34) {
        end = skipString(text, i);
        kind = 'string';
      } else if (c === 123 || c === 91) {
        end = skipNested(text, i);
        kind = c === 123 ? 'object' : 'array';
      } else {
        end = i;
        while (end < text.length) {
          const d = text.charCodeAt(end);
          if (d === 44 || d === 125 || WS.has(d)) break;
          end++;
        }
        const word = text.slice(i, end);
        if (word === 'true' || word === 'false' || word === 'null') kind = word;
        else if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(word)) kind = 'number';
        else return undefined;
      }
      out.set(key, { kind, raw: text.slice(i, end) });
      i = skipWs(text, end);
      const sep = text.charCodeAt(i);
      if (sep === 44) {
        i = skipWs(text, i + 1);
        continue;
      }
      if (sep === 125) return skipWs(text, i + 1) === text.length ? out : undefined;
      return undefined;
    }
  } catch {
    return undefined;
  }
}

/** The JS string of a string field (unescaped). */
export function stringValue(f: RawField): string {
  if (f.text !== undefined) return f.text;
  return f.raw.includes('\\') ? (JSON.parse(f.raw) as string) : f.raw.slice(1, -1);
}
