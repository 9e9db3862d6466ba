/**
 * Walks SQL text outside string literals, quoted identifiers, comments and PostgreSQL
 * dollar-quoted strings, calling `visit` with each index of plain SQL. `visit` returns how many
 * characters it consumed (0 to go on one by one).
 */
export function walkSql(sql: string, visit: (i: number) => number, onQuoted?: (start: number, end: number) => void): void {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    let end = -1;
    if (c === "'" || c === '"' || c === '`') {
      end = i + 1;
      for (;;) {
        const q = sql.indexOf(c, end);
        if (q < 0) {
          end = sql.length;
          break;
        }
        // A doubled quote is an escaped quote; MySQL also escapes with a backslash.
        if (sql[q + 1] === c) end = q + 2;
        else if (c === "'" && sql[q - 1] === '\\' && sql[q - 2] !== '\\') end = q + 1;
        else {
          end = q + 1;
          break;
        }
      }
    } else if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      end = nl < 0 ? sql.length : nl;
    } else if (c === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2);
      end = close < 0 ? sql.length : close + 2;
    } else if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        end = close < 0 ? sql.length : close + tag[0].length;
      }
    }
    if (end >= 0) {
      onQuoted?.(i, end);
      i = end;
      continue;
    }
    const used = visit(i);
    i += used > 0 ? used : 1;
  }
}

/** The index of the `)` closing the `(` at `open`, skipping quoted text; -1 if none. */
export function closingParen(sql: string, open: number): number {
  let depth = 0;
  let found = -1;
  walkSql(sql.slice(open), (i) => {
    if (found >= 0) return sql.length;
    const c = sql[open + i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) found = open + i;
    return 0;
  });
  return found;
}

/** True when `word` (case-insensitive, as a whole word) occurs outside quoted text. */
export function hasKeyword(sql: string, word: string): boolean {
  const re = new RegExp(`\\b${word.replace(/ /g, '\\s+')}\\b`, 'i');
  let plain = '';
  let last = 0;
  walkSql(sql, () => 0, (start, end) => {
    plain += sql.slice(last, start) + ' ';
    last = end;
  });
  plain += sql.slice(last);
  return re.test(plain);
}
