import type { ColumnInfo, LogicalType } from '../sql/types.js';

type Affinity = NonNullable<ColumnInfo['affinity']>;

/** SQLite's own rules (datatype3.html §3.1), in their order: what storage class a column converts values to. */
export function sqliteAffinity(declared: string | null | undefined): Affinity {
  const d = (declared ?? '').toUpperCase();
  if (d.includes('INT')) return 'integer';
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return 'text';
  if (d === '' || d.includes('BLOB')) return 'blob';
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return 'real';
  return 'numeric';
}

/** Declared column type → logical type, following SQLite's affinity rules with the common names first. */
export function sqliteType(declared: string | null | undefined): { type: LogicalType | undefined; scale?: number; precision?: number; affinity: Affinity } {
  const d = (declared ?? '').toUpperCase();
  const affinity = sqliteAffinity(declared);
  const t = (type: LogicalType | undefined) => ({ type, affinity });
  if (d === '') return t(undefined);
  if (d.includes('JSON')) return t('json');
  if (d.includes('BOOL')) return t('bool');
  if (d.includes('TIMESTAMPTZ') || d.includes('TIMESTAMP WITH TIME ZONE')) return t('timestamptz');
  if (d.includes('DATETIME') || d.includes('TIMESTAMP')) return t('timestamp');
  if (d === 'DATE') return t('date');
  if (d.startsWith('TIME')) return t('time');
  if (d.includes('UUID')) return t('uuid');
  if (d.includes('INT')) return t('bigint');
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return t('text');
  if (d.includes('BLOB') || d.includes('BINARY') || d.includes('BYTEA')) return t('bytes');
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return t('float');
  if (d.includes('DEC') || d.includes('NUMERIC')) {
    const m = /\(\s*(\d+)\s*,\s*(\d+)\s*\)/.exec(d);
    return m ? { type: 'decimal', precision: Number(m[1]), scale: Number(m[2]), affinity } : t('decimal');
  }
  return t(undefined);
}
