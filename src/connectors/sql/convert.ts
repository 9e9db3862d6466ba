import { stringValue } from '../../core/json-fields.js';
import type { Message } from '../../core/message.js';
import type { Binding } from './tokens.js';
import type { SqlKind } from './types.js';

const INT = /^-?\d+$/;

/** A JSON number for the driver: exact text for PostgreSQL and unsafe values, a JS number otherwise. */
function numberFor(raw: string, kind: SqlKind): unknown {
  if (kind === 'postgres') return raw;
  if (kind === 'sqlite') return INT.test(raw) ? BigInt(raw) : Number(raw);
  const n = Number(raw);
  return Number.isSafeInteger(n) || (!INT.test(raw) && String(n) === raw) ? n : raw;
}

const boolFor = (v: boolean, kind: SqlKind): unknown => (kind === 'sqlite' ? (v ? 1 : 0) : v);

/**
 * Contract §4.1 rules 2, 4 and 7: what a token binds. Strings bind as text, numbers and booleans
 * stay typed; an absent metadata key, a non-JSON payload, a missing or non-scalar field bind NULL.
 */
export function tokenValue(b: Binding, m: Message, kind: SqlKind): unknown {
  if (b.from === 'payload') return m.text();
  if (b.from === 'metadata') return m.metadata?.[b.key] ?? null;
  const f = m.fields()?.get(b.name);
  if (!f) return null;
  switch (f.kind) {
    case 'string':
      return stringValue(f);
    case 'number':
      return numberFor(f.raw, kind);
    case 'true':
      return boolFor(true, kind);
    case 'false':
      return boolFor(false, kind);
    default:
      return null;
  }
}
