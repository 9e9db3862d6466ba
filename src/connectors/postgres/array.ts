/** PostgreSQL's array text with explicit bounds: `[0:2]={…}`, `[1:1][0:1]={{…}}`. */
export const BOUNDS = /^(\[-?\d+:-?\d+\])+=\{/;

/**
 * Parses PostgreSQL's array text (`{1,2,"a b",NULL,{3,4}}`) into nested arrays of element text,
 * with null for NULL. Element values stay text so each is rendered by its own type afterwards.
 */
export function parsePgArray(text: string): unknown {
  let i = 0;
  // Arrays with explicit bounds start with `[1:2]=`. A lower bound other than 1 has no place in a
  // JSON array: such an array stays PostgreSQL's text (a JSON string), which a PostgreSQL array
  // column takes back with its bounds (see PgBinder.array).
  if (text[0] === '[') {
    i = text.indexOf('=') + 1;
    if (BOUNDS.test(text) && [...text.slice(0, i).matchAll(/\[(-?\d+):/g)].some((m) => m[1] !== '1')) return text;
  }
  // Not array text (a vector type's `1 2 3`, anything unexpected): the text itself, never a guess.
  if (text[i] !== '{' || text[text.length - 1] !== '}') return text;
  const parse = (): unknown[] => {
    const out: unknown[] = [];
    i++; // {
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      const c = text[i];
      if (c === undefined) return out;
      if (c === '{') out.push(parse());
      else if (c === '"') {
        let s = '';
        i++;
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\') i++;
          s += text[i];
          i++;
        }
        i++;
        out.push(s);
      } else {
        let j = i;
        while (j < text.length && text[j] !== ',' && text[j] !== '}') j++;
        const raw = text.slice(i, j);
        out.push(raw === 'NULL' ? null : raw);
        i = j;
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      i++; // }
      return out;
    }
  };
  return parse();
}
