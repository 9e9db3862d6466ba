import type { Message } from '../../core/message.js';
import type { ColumnInfo } from '../sql/types.js';
import type { ChangeStep, Segment } from '../sql/write/write-columns.js';
import { COPY_FROM } from './default-copy.js';
import { DELETE_FLAG } from './upsert-merge.js';

/** Rows of one COPY into a mirror's temporary table: upserts, then the keys to delete, each flagged (DELETE_FLAG). */
export interface FlaggedRows {
  cols: ColumnInfo[];
  rows: { values: unknown[]; m: Message | undefined }[];
}

/**
 * A batch of changes with deletes, when it can be one COPY and one simple query (upsertSql with
 * deletes): one segment (no truncate), its upserts of one column list holding the key, every
 * delete carrying the key, COPY_FROM rows or more, no domain column and no single array key. A
 * delete's row has the key's values and NULL elsewhere. With 1 % deletes (100,000 single-row
 * transactions) BEGIN, DELETE, the merge, the position and COMMIT were five round trips a batch
 * where a batch of upserts takes one.
 */
export function flaggedRows(steps: ChangeStep[], segs: Segment[], key: ColumnInfo[]): FlaggedRows | undefined {
  const seg = segs[0];
  if (segs.length !== 1 || !seg || seg.truncate || seg.deletes.length === 0 || seg.upserts.length + seg.deletes.length < COPY_FROM) return undefined;
  const last = steps.at(-1);
  const groups = Array.isArray(last) ? last : [];
  if (groups.length > 1 || (seg.upserts.length > 0 && groups.length === 0)) return undefined;
  const cols = groups[0]?.cols ?? key;
  if (!key.every((k) => cols.includes(k)) || cols.some((c) => c.name === DELETE_FLAG)) return undefined;
  // A domain's NOT NULL would refuse a delete's NULLs in the temporary table; `ARRAY(SELECT k)` of an array key is a deeper array, not an array of keys.
  if (cols.some((c) => c.domain) || (key.length === 1 && key[0]!.type === 'array')) return undefined;
  if (seg.deletes.some((r) => !key.every((k) => r.cols.includes(k)))) return undefined;
  const rows: FlaggedRows['rows'] = (groups[0]?.rows ?? []).map((r) => ({ values: [...r.values, false], m: r.m }));
  for (const r of seg.deletes) rows.push({ values: [...cols.map((c) => (key.includes(c) ? r.values[r.cols.indexOf(c)] : null)), true], m: r.m });
  return { cols, rows };
}
