/**
 * A JSON value parsed without losing what JSON.parse loses: numbers keep their text (`30.00`,
 * integers beyond 2^53), objects keep their exact source text. Used where a JSON array must become
 * a database array element by element.
 */
export type JsonNode =
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'object'; raw: string }
  | { kind: 'string'; value: string }
  | { kind: 'number'; raw: string }
  | { kind: 'true' | 'false' | 'null' };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parses one JSON document; throws SyntaxError when it is not valid JSON. */
export function parseJsonExact(text: string): JsonNode {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw new SyntaxError(`not valid JSON at offset ${i}`);
  };
  const str = (): string => {
    const start = i;
    i++;
    for (;;) {
      const q = text.indexOf('"', i);
      if (q < 0) fail();
      let bs = 0;
      for (let k = q - 1; text[k] === '\\'; k--) bs++;
      i = q + 1;
      if (bs % 2 === 0) break;
    }
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): JsonNode => {
    ws();
    const c = text[i];
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return { kind: 'array', items };
        } else fail();
      }
    }
    if (c === '{') {
      const start = i;
      let depth = 0;
      for (; i < text.length; i++) {
        const d = text[i];
        if (d === '"') {
          str();
          i--;
        } else if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          if (--depth === 0) {
            i++;
            const raw = text.slice(start, i);
            JSON.parse(raw); // validates the object as a whole
            return { kind: 'object', raw };
          }
        }
      }
      fail();
    }
    if (c === '"') return { kind: 'string', value: str() };
    for (const word of ['true', 'false', 'null'] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return { kind: word };
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail();
    i += m![0].length;
    return { kind: 'number', raw: m![0] };
  };
  const out = value();
  ws();
  if (i !== text.length) fail();
  return out;
}

/** Whether text is one valid JSON document. */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
