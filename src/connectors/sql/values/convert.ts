import { stringValue, type RawField } from '../../../core/json-fields.js';
import type { Message } from '../../../core/message.js';
import type { Binding } from '../write/tokens.js';

/** How a kind binds a token's JSON number and boolean (each dialect says; see Dialect.tokenNumber). */
export interface TokenTypes {
  tokenNumber(raw: string): unknown;
  tokenBool(v: boolean): unknown;
}

/**
 * Contract §4.1 rules 2, 4 and 7: what a token binds. Strings bind as text, numbers and booleans
 * stay typed; an absent metadata key, a non-JSON payload, a missing or non-scalar field bind NULL.
 */
export function tokenValue(b: Binding, m: Message, t: TokenTypes): unknown {
  if (b.from === 'payload') return m.text();
  if (b.from === 'metadata') return m.metadata?.[b.key] ?? null;
  return fieldToken(m.fields()?.get(b.name), t);
}

/** What `${payload:f}` binds of field f (undefined: the payload has no such field). */
export function fieldToken(f: RawField | undefined, t: TokenTypes): unknown {
  if (!f) return null;
  switch (f.kind) {
    case 'string':
      return stringValue(f);
    case 'number':
      return t.tokenNumber(f.raw);
    case 'true':
      return t.tokenBool(true);
    case 'false':
      return t.tokenBool(false);
    default:
      return null;
  }
}
