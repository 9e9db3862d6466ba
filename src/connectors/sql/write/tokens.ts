import { configError } from '../../../core/errors.js';
import { closingParen, walkSql } from './sql-scan.js';

/** What one placeholder of a token query binds (contract §4.1). */
export type Binding = { from: 'payload' } | { from: 'field'; name: string } | { from: 'metadata'; key: string };

/** SQL text and bindings, in order: text, binding, text, binding, …, text. */
export interface Template {
  texts: string[];
  bindings: Binding[];
}

export interface TokenQuery {
  source: string;
  whole: Template;
  /** Whether `${…}` tokens occur (without them the query binds the whole payload once). */
  hasTokens: boolean;
  /**
   * `prefix VALUES (tuple) suffix` with every binding in the tuple: a batch becomes one
   * multi-row statement by repeating the tuple. Absent when the query cannot be repeated that way.
   */
  multiRow?: { prefix: string; tuple: Template; suffix: string };
}

const TOKEN = /^\$\{([a-z]+):([^}]*)\}/;

/** Parses `?`, `${payload:f}` and `${metadata:k}` of a query; malformed tokens are config errors. */
export function parseTemplate(sql: string, field: string): Template {
  const texts: string[] = [];
  const bindings: Binding[] = [];
  let last = 0;
  walkSql(
    sql,
    (i) => {
      const c = sql[i];
      if (c === '$' && sql[i + 1] === '{') {
        const m = TOKEN.exec(sql.slice(i));
        if (!m) throw configError(`${field} has a malformed token at "${sql.slice(i, i + 24)}": write \${payload:<field>} or \${metadata:<key>}`);
        const [all, kind, name] = m as unknown as [string, string, string];
        if (kind !== 'payload' && kind !== 'metadata') throw configError(`${field} has an unknown token kind "${kind}" in ${all}: use payload or metadata`);
        if (name === '') throw configError(`${field} has an empty name in ${all}`);
        texts.push(sql.slice(last, i));
        bindings.push(kind === 'payload' ? { from: 'field', name } : { from: 'metadata', key: name });
        last = i + all.length;
        return all.length;
      }
      if (c === '?') {
        const prev = sql[i - 1];
        const next = sql[i + 1];
        // PostgreSQL's jsonb operators ?| ?& and a doubled ?? are not placeholders.
        if (next === '|' || next === '&' || next === '?' || prev === '?') return 0;
        texts.push(sql.slice(last, i));
        bindings.push({ from: 'payload' });
        last = i + 1;
        return 1;
      }
      return 0;
    },
    (start, end) => {
      if (/\$\{(payload|metadata):/.test(sql.slice(start, end)))
        throw configError(`${field} has a token inside a quoted string (${sql.slice(start, Math.min(end, start + 30))}…): remove the quotes, the value is bound`);
    },
  );
  texts.push(sql.slice(last));
  return { texts, bindings };
}

export function parseTokenQuery(sql: string, field: string): TokenQuery {
  const whole = parseTemplate(sql, field);
  const hasTokens = whole.bindings.some((b) => b.from !== 'payload');
  const out: TokenQuery = { source: sql, whole, hasTokens };
  const m = /\bVALUES\s*\(/i.exec(sql);
  if (m) {
    const open = m.index + m[0].length - 1;
    const close = closingParen(sql, open);
    if (close > 0) {
      const prefix = sql.slice(0, open);
      const suffix = sql.slice(close + 1);
      const tuple = parseTemplate(sql.slice(open, close + 1), field);
      const outside = parseTemplate(prefix, field).bindings.length + parseTemplate(suffix, field).bindings.length;
      if (outside === 0 && !/^\s*,/.test(suffix)) out.multiRow = { prefix, tuple, suffix };
    }
  }
  return out;
}

/** Renders a template with the dialect's placeholders, numbering from `start`. */
export function renderTemplate(t: Template, param: (i: number) => string, start: number): string {
  let s = t.texts[0]!;
  for (let i = 0; i < t.bindings.length; i++) s += param(start + i) + t.texts[i + 1]!;
  return s;
}
