import type { LogicalType } from '../sql/types.js';

/** Declared column type → logical type, following SQLite's affinity rules with the common names first. */
export function sqliteType(declared: string | null | undefined): { type: LogicalType | undefined; scale?: number } {
  const d = (declared ?? '').toUpperCase();
  if (d === '') return { type: undefined };
  if (d.includes('JSON')) return { type: 'json' };
  if (d.includes('BOOL')) return { type: 'bool' };
  if (d.includes('TIMESTAMPTZ') || d.includes('TIMESTAMP WITH TIME ZONE')) return { type: 'timestamptz' };
  if (d.includes('DATETIME') || d.includes('TIMESTAMP')) return { type: 'timestamp' };
  if (d === 'DATE') return { type: 'date' };
  if (d.startsWith('TIME')) return { type: 'time' };
  if (d.includes('UUID')) return { type: 'uuid' };
  if (d.includes('INT')) return { type: 'bigint' };
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return { type: 'text' };
  if (d.includes('BLOB') || d.includes('BINARY') || d.includes('BYTEA')) return { type: 'bytes' };
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return { type: 'float' };
  if (d.includes('DEC') || d.includes('NUMERIC')) {
    const m = /\(\s*\d+\s*,\s*(\d+)\s*\)/.exec(d);
    return m ? { type: 'decimal', scale: Number(m[1]) } : { type: 'decimal' };
  }
  return { type: undefined };
}
