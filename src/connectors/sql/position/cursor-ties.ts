import type { Message } from '../../../core/message.js';
import type { Position } from './cursor-frontier.js';
import type { CursorQuery } from './cursor-query.js';
import type { Database } from '../database.js';
import { rawText, sameValue } from '../values/raw-text.js';
import type { ColumnInfo, SqlResult } from '../types.js';

/** More rows than this at one cursor value (a bulk load stamped at once) are not guarded: re-reading them each poll would cost more than it could save. */
const MAX_TIE_ROWS = 10_000;

interface TieReads {
  db: Database;
  q: CursorQuery;
  table: string;
  select: string;
  messages(res: SqlResult): Message[];
  warn(text: string): void;
}

/**
 * Where the database lists no open transactions (SQLite, whose writers take turns, so rows commit
 * in cursor order), one case still commits below a read: a tie. Two writers stamp the same
 * millisecond; the one with the larger key commits, a poll reads it, and the one with the smaller
 * key commits after — below the position (value, key) the poll moved to, lost for good. So, while
 * the run lasts, the rows of the highest value read are read again at each poll (those delivered
 * are skipped) until a higher value is read: then no writer can still stamp the lower one. The
 * saved position is the one read (a re-run repeats nothing), so a tie that commits while no run
 * is reading is not looked for.
 */
export class TieGuard {
  private tie: { value: string; seen: Set<string> } | undefined;

  constructor(private readonly o: TieReads) {}

  /** Rows at the open value, up to `high`, that committed since they were read: delivered now. */
  async reread(high: Position | undefined): Promise<Message[]> {
    if (!this.tie || !high) return [];
    const d = this.o.db.dialect;
    const params: unknown[] = [];
    const res = await this.o.db.query(`SELECT ${this.o.select} FROM ${d.table(this.o.table)} WHERE ${this.o.q.tiesUpTo(high, params)} ORDER BY ${this.o.q.orderBy()}`, params);
    const keep = this.fresh(res.rows.map(this.o.q.identityOf(res)));
    const rows = res.rows.filter((_, i) => keep[i]);
    return rows.length ? this.o.messages({ ...res, rows }) : [];
  }

  /** The highest position read, whose value may still get ties (undefined: none to re-read). */
  get open(): string | undefined {
    return this.tie?.value;
  }

  /** Notes rows read after the high position, in cursor order: those of the last value are watched for ties. */
  read(positions: Position[], ids: string[]): void {
    if (!positions.length) return;
    const last = positions[positions.length - 1]!.value;
    let i = positions.length - 1;
    while (i > 0 && positions[i - 1]!.value === last) i--;
    if (!this.tie || this.tie.value !== last) this.tie = { value: last, seen: new Set() };
    for (let k = i; k < ids.length; k++) this.tie.seen.add(ids[k]!);
    if (this.tie.seen.size > MAX_TIE_ROWS) {
      this.o.warn(`more than ${MAX_TIE_ROWS} rows share the cursor value ${last}: rows committed later with that same value and a smaller key are not looked for (see cursor_lag_ms)`);
      this.tie = undefined;
    }
  }

  /** Of rows re-read at the open value, which were not delivered yet (and are now). */
  fresh(ids: string[]): boolean[] {
    return ids.map((id) => {
      if (!this.tie || this.tie.seen.has(id)) return false;
      this.tie.seen.add(id);
      return true;
    });
  }
}

/**
 * Run-based paging (no usable key), the other way cursor ties are kept whole: drop the trailing
 * run of a full page, or complete a page that is one run.
 */
export async function wholeRuns(o: { db: Database; table: string; select?: string | undefined; column: ColumnInfo }, res: SqlResult, max: number): Promise<unknown[][]> {
  const rows = res.rows;
  const ci = res.fields.findIndex((f) => f.name === o.column.name);
  const type = o.column.type;
  const lastVal = rawText(rows[rows.length - 1]![ci]);
  let cut = rows.length;
  while (cut > 0 && sameValue(rawText(rows[cut - 1]![ci]), lastVal, type)) cut--;
  if (cut > 0 && rows.length >= max) return rows.slice(0, cut);
  const d = o.db.dialect;
  const p: unknown[] = [];
  const eq = `${d.quote(o.column.name)} = ${d.cursorValue(type, lastVal, p)}`;
  return (await o.db.query(`SELECT ${o.select ?? '*'} FROM ${d.table(o.table)} WHERE ${eq}`, p)).rows;
}
