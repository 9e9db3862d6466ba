import type { Message } from '../../../core/message.js';
import type { Row } from './column-rows.js';
import type { Dialect } from '../dialect.js';
import type { ColumnInfo } from '../types.js';
import { chunkByParams, type Statement } from './writer.js';

/** Rows of a batch that map to the same columns. */
export interface Group {
  cols: ColumnInfo[];
  rows: Row[];
}

/** A step of a batch of changes: a statement (a delete, a truncate), or rows to upsert by key. */
export type ChangeStep = Statement | Group[];

/** What a change-capture message asks of a mirror table. */
export type ChangeOp = 'upsert' | 'delete' | 'truncate';

/** The operation of a message (`bridge.op` of change capture); anything else is an upsert. */
export function opOf(m: Message): ChangeOp {
  const op = m.metadata?.['bridge.op'];
  return op === 'delete' || op === 'truncate' ? op : 'upsert';
}

/** Whether a batch holds changes that are not upserts (it must then be applied in order, with deletes). */
export function hasChanges(messages: Message[]): boolean {
  // Change sources share one metadata object among many messages: each is looked at once.
  let seen: Message['metadata'] | null = null;
  for (const m of messages) {
    if (m.metadata === seen) continue;
    seen = m.metadata;
    if (opOf(m) !== 'upsert') return true;
  }
  return false;
}

/** A run of a batch between truncates: for each key, the last operation wins. */
export interface Segment {
  truncate: boolean;
  upserts: Row[];
  deletes: Row[];
}

/**
 * Splits a batch of changes into segments at each truncate and keeps, per key, the last operation:
 * within a segment deletes and upserts concern different keys and commute, so they apply as sets.
 */
export function segments(messages: Message[], row: (m: Message) => Row): Segment[] {
  const out: Segment[] = [];
  let current = new Map<string, { row: Row; op: ChangeOp }>();
  let truncate = false;
  const flush = (): void => {
    const rows = [...current.values()];
    out.push({ truncate, upserts: rows.filter((x) => x.op === 'upsert').map((x) => x.row), deletes: rows.filter((x) => x.op === 'delete').map((x) => x.row) });
  };
  for (const m of messages) {
    const op = opOf(m);
    if (op === 'truncate') {
      flush();
      current = new Map();
      truncate = true;
      continue;
    }
    const r = row(m);
    const k = r.keyText ?? `#${current.size}`;
    const before = current.get(k);
    current.set(k, { row: op === 'upsert' && before?.op === 'upsert' ? overlay(before.row, r) : r, op });
  }
  flush();
  return out.filter((s) => s.truncate || s.upserts.length || s.deletes.length);
}

/**
 * A later upsert of a key over an earlier one: the later values win, and a column the later one
 * does not carry keeps the earlier value — PostgreSQL sends an UPDATE without the TOASTed values it
 * did not change, and the key's last change alone would have written them as NULL.
 */
export function overlay(earlier: Row, later: Row): Row {
  if (earlier.cols === later.cols || earlier.cols.every((c) => later.cols.includes(c))) return later;
  const cols = [...later.cols];
  const values = [...later.values];
  earlier.cols.forEach((c, i) => {
    if (later.cols.includes(c)) return;
    cols.push(c);
    values.push(earlier.values[i]);
  });
  return { ...later, cols, values };
}

/** `DELETE … WHERE (k1 = ? AND k2 = ?) OR …` for the keys of `rows`, within the bind limit. */
export function deleteStatements(d: Dialect, table: string, key: ColumnInfo[], rows: Row[]): Statement[] {
  return chunkByParams(rows, key.length, d.maxParams).map((part) => {
    const params: unknown[] = [];
    const ors = part.map((r) => {
      const conds = key.map((k) => {
        params.push(r.values[r.cols.indexOf(k)]);
        return `${d.quote(k.name)} = ${d.castParam(d.param(params.length), k)}`;
      });
      return `(${conds.join(' AND ')})`;
    });
    return { sql: `DELETE FROM ${d.table(table)} WHERE ${ors.join(' OR ')}`, params };
  });
}

/** A batch's segments as steps in order: per segment a truncate (DELETE of every row), deletes by key, then its upserts grouped by column list. */
export function changeSteps(d: Dialect, table: string, key: ColumnInfo[], segs: Segment[], group: (rows: Row[]) => Group[]): { steps: ChangeStep[]; written: Row[] } {
  const steps: ChangeStep[] = [];
  const written: Row[] = [];
  for (const seg of segs) {
    if (seg.truncate) steps.push({ sql: `DELETE FROM ${d.table(table)}`, params: [] });
    steps.push(...deleteStatements(d, table, key, seg.deletes));
    if (seg.upserts.length) steps.push(group(seg.upserts));
    written.push(...seg.upserts);
  }
  return { steps, written };
}
