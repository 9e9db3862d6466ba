import type { PlanItem, SourceBatch } from '../../../core/route.js';
import type { Database, HeldTransaction } from '../database.js';
import type { Reader } from './reader.js';
import { rawText, type RowMessages } from './rows.js';
import type { ColumnInfo } from '../types.js';

export interface DeleteOptions {
  db: Database;
  /** Select list (conversions that keep values exact on some kinds). */
  select?: string;
  table: string;
  key: ColumnInfo[];
  rows: RowMessages;
}

export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Deletes rows by key. One `DELETE … WHERE k IN (…)` where the database locks only the listed
 * rows; on MySQL/MariaDB an IN list is scanned as a range whose read of the next record waits on a
 * row another open batch holds, so there each key is deleted by a point lookup.
 */
export function deleteByKeys(db: Database, table: string, key: ColumnInfo[], values: string[][]): Statement[] {
  const d = db.dialect;
  const t = d.table(table);
  const cols = key.length === 1 ? d.quote(key[0]!.name) : `(${key.map((k) => d.quote(k.name)).join(', ')})`;
  const tuple = (v: string[], params: unknown[]): string => {
    const parts = key.map((k, i) => d.cursorValue(k.type, v[i]!, params));
    return parts.length === 1 ? parts[0]! : `(${parts.join(', ')})`;
  };
  if (d.deletesByPointLookups)
    return values.map((v) => {
      const params: unknown[] = [];
      return { sql: `DELETE FROM ${t} WHERE ${cols} = ${tuple(v, params)}`, params };
    });
  const params: unknown[] = [];
  return [{ sql: `DELETE FROM ${t} WHERE ${cols} IN (${values.map((v) => tuple(v, params)).join(', ')})`, params }];
}

/**
 * Destructive read of any table with a primary key. Where the database has SKIP LOCKED, each batch
 * is selected FOR UPDATE in a transaction that stays open until the sink confirmed it; the delete
 * and the commit then happen together, and a crash rolls everything back. So concurrent readers
 * never get the same row and nothing is deleted before it was delivered.
 *
 * SQLite has no row locks: there the reader pages by key and deletes on ack (one reader per file).
 */
export class DeleteReader implements Reader {
  readonly finite = false;
  private last: string[] | undefined;

  constructor(private readonly o: DeleteOptions) {}

  private get locking(): boolean {
    return this.o.db.dialect.canSkipLocked;
  }

  async poll(max: number): Promise<SourceBatch | null> {
    const d = this.o.db.dialect;
    const t = d.table(this.o.table);
    const order = this.o.key.map((k) => d.quote(k.name)).join(', ');
    const params: unknown[] = [];
    let tx: HeldTransaction | undefined;
    let res;
    if (this.locking) {
      tx = await this.o.db.begin();
      try {
        res = await tx.query(`SELECT ${this.o.select ?? '*'} FROM ${t}${d.lockHint} ORDER BY ${order}${d.limit(max)}${d.skipLocked}`);
      } catch (e) {
        await tx.rollback();
        throw e;
      }
      if (res.rows.length === 0) {
        await tx.rollback();
        return null;
      }
    } else {
      // Rows read but not yet confirmed are still in the table: page past them.
      const where = this.last ? ` WHERE ${d.keysetAfter(this.o.key, this.last, params)}` : '';
      res = await this.o.db.query(`SELECT ${this.o.select ?? '*'} FROM ${t}${where} ORDER BY ${order}${d.limit(max)}`, params);
      if (res.rows.length === 0) {
        this.last = undefined;
        return null;
      }
    }
    const idx = this.o.key.map((k) => res.fields.findIndex((f) => f.name === k.name));
    const keys = res.rows.map((row) => idx.map((i) => rawText(row[i])));
    this.last = keys[keys.length - 1];
    const prefix = `${d.kind}:${this.o.table}:`;
    const messages = this.o.rows.rowsAsJson(res, 0, (_row, i) => prefix + keys[i]!.join(','));
    const del = deleteByKeys(this.o.db, this.o.table, this.o.key, keys);
    const held = tx;
    return {
      messages,
      position: `${this.o.key.map((k) => k.name).join(',')}=${this.last!.join(',')}`,
      ackRetryable: !held,
      ack: async () => {
        if (!held) {
          for (const st of del) await this.o.db.query(st.sql, st.params);
          return;
        }
        try {
          for (const st of del) await held.query(st.sql, st.params);
        } catch (e) {
          await held.rollback();
          throw e;
        }
        await held.commit();
      },
      release: async () => {
        if (held) await held.rollback();
        else this.last = undefined;
      },
    };
  }

  async estimate(): Promise<number | null> {
    const r = await this.o.db.query(`SELECT COUNT(*) FROM ${this.o.db.dialect.table(this.o.table)}`);
    return Number(r.rows[0]?.[0] ?? 0);
  }

  plan(): PlanItem[] {
    return [
      {
        label: 'mode',
        value: this.locking
          ? `destructive read: batches locked FOR UPDATE SKIP LOCKED, deleted and committed once the sink confirmed`
          : `destructive read paged by ${this.o.key.map((k) => k.name).join(', ')}, deleted once the sink confirmed (one reader per SQLite file)`,
      },
    ];
  }
}
