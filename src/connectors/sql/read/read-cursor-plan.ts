import type { PlanItem } from '../../../core/route.js';
import type { Position } from '../position/cursor-frontier.js';
import type { CursorQuery } from '../position/cursor-query.js';
import type { CursorOptions } from './read-cursor.js';

/** What the cursor reader knows at plan time, beyond its options. */
export interface CursorPlanState {
  q: CursorQuery;
  /** The position reading starts after (the saved frontier), undefined from the start. */
  start: Position | undefined;
  /** The cursor is the table's integer primary key (no runs of equal values). */
  dense: boolean;
  /** Whether rows committed late are tracked; undefined before the reader started. */
  tracking: boolean | undefined;
  /** The checkpoint's text as loaded, when there was one. */
  stored: string | undefined;
}

/** The plan lines of cursor paging (CursorReader.plan): mode, starting position, query, late rows and checkpoint. */
export function cursorPlan(o: CursorOptions, { q, start, dense, tracking, stored }: CursorPlanState): PlanItem[] {
  const d = o.db.dialect;
  const order = q.orderBy();
  const items: PlanItem[] = [
    { label: 'mode', value: `cursor paging on ${o.column.name} (${o.column.dbType})${q.keyed ? ', ties ordered by the primary key' : ''}` },
    { label: 'position', value: start === undefined ? 'start of table' : `after ${q.describe(start)}` },
    {
      label: 'query',
      value: q.keyed
        ? `SELECT * FROM ${d.table(o.table)} WHERE (${order}) > (<position>) ORDER BY ${order}${d.limit(1024)}`
        : `SELECT * FROM ${d.table(o.table)} WHERE ${d.quote(o.column.name)} > <position> ORDER BY ${order}${d.limit(1024)}${dense ? '' : ' (no primary key: a trailing run of equal values is read again; a page of one value is completed)'}`,
    },
    {
      label: 'late rows',
      value: tracking
        ? `rows committed out of cursor order are re-read once the transactions open at each read have ended${o.lagMs ? ` and ${o.lagMs} ms have passed (cursor_lag_ms)` : ''}; the checkpoint keeps the position below which nothing can still arrive`
        : 'not tracked (the kind serialises writers)',
    },
  ];
  if (o.store) {
    items.push({ label: 'checkpoint', value: `${o.cursorId} in ${o.store.description}` });
    items.push({ label: 'checkpoint holds', value: stored ?? 'nothing yet (first run)' });
  } else items.push({ label: 'checkpoint', value: 'none (no cursor_id): a restart reads from the start' });
  return items;
}
