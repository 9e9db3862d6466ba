/**
 * Parses PostgreSQL's array text (`{1,2,"a b",NULL,{3,4}}`) into nested arrays of element text,
 * with null for NULL. Element values stay text so each is rendered by its own type afterwards.
 */
export function parsePgArray(text: string): unknown {
  let i = 0;
  // Arrays with explicit bounds start with `[1:2]=`.
  if (text[0] === '[') i = text.indexOf('=') + 1;
  const parse = (): unknown[] => {
    const out: unknown[] = [];
    i++; // {
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      const c = text[i];
      if (c === '{') out.push(parse());
      else if (c === '"') {
        let s = '';
        i++;
        while (text[i] !== '"') {
          if (text[i] === '\\') i++;
          s += text[i];
          i++;
        }
        i++;
        out.push(s);
      } else {
        let j = i;
        while (text[j] !== ',' && text[j] !== '}') j++;
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
