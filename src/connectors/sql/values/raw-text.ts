import type { LogicalType } from '../types.js';

/** Exact text of a raw cursor/key value (never through a JS number for big values). */
export function rawText(v: unknown): string {
  if (Buffer.isBuffer(v)) return v.toString('hex');
  return String(v);
}

/** Decimal text normalised so that 1.0 and 1.00 compare equal. */
export function sameValue(a: string, b: string, type: LogicalType): boolean {
  if (a === b) return true;
  if (type !== 'decimal' && type !== 'float') return false;
  const norm = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  return norm(a) === norm(b);
}
