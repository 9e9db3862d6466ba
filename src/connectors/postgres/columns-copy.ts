import { createHash } from 'node:crypto';
import type { PlanItem } from '../../core/route.js';
import type { Message } from '../../core/message.js';
import type { RowSet } from '../../core/row-set.js';
import { SqlRowSet } from '../sql/row-set.js';
import { ColumnsWriter, type Group } from '../sql/write-columns.js';
import { copyChunks, copyValue } from './copy-text.js';
import { COPY_FROM } from './default-copy.js';
import type { PgConnection } from './driver.js';

/** Bytes of COPY text per chunk: rows are joined into flat strings of about this size (a string grown row by row is a rope that costs more to encode than to build). */
const CHUNK = 256 * 1024;

/** Rows as COPY text in flat chunks of about CHUNK bytes; `values` gives each row's column values (message-less rows are rejected unnamed). */
function chunked<T>(rows: T[], values: (r: T) => unknown[], m?: (r: T) => Message | undefined): Buffer[] {
  const chunks: Buffer[] = [];
  let lines: string[] = [];
  let size = 0;
  for (const r of rows) {
    const v = values(r);
    const msg = m?.(r);
    let line = copyValue(v[0], msg);
    for (let i = 1; i < v.length; i++) line += '\t' + copyValue(v[i], msg);
    lines.push(line);
    size += line.length;
    if (size >= CHUNK) {
      chunks.push(Buffer.from(lines.join('\n') + '\n'));
      lines = [];
      size = 0;
    }
  }
  if (lines.length) chunks.push(Buffer.from(lines.join('\n') + '\n'));
  return chunks;
}

const encode = (g: Group): Buffer[] => chunked(g.rows, (r) => r.values, (r) => r.m);

/**
 * columns=auto on PostgreSQL through COPY: rows are appended with `COPY t (cols) FROM STDIN`; with
 * key they are copied into a temporary table and merged with one `INSERT … SELECT … ON CONFLICT DO
 * UPDATE`, in one transaction per batch. Same conversions as the INSERT path (COPY runs each
 * column's input function, as the casts of the INSERT path do), several times faster.
 */
export class PgColumnsWriter extends ColumnsWriter {
  /** Appends commute, upserts do not: with a key, batches load one after another. */
  get concurrency(): number {
    return this.key ? 1 : 2;
  }

  /**
   * Rows a PostgreSQL table gave as COPY text go into this one as they are when every column keeps
   * its type (an append): no value is parsed or converted on the way.
   */
  override async writeRows(set: RowSet): Promise<boolean> {
    if (set instanceof SqlRowSet && set.wire?.kind === 'postgres' && set.wire.format === 'text' && !this.key) {
      const targets = this.rows.passThrough(set.shape);
      if (targets) {
        const d = this.db.dialect;
        const sql = `COPY ${d.table(this.o.table)} (${targets.map((x) => d.quote(x.name)).join(', ')}) FROM STDIN`;
        await this.db.withConnection((c) => copyChunks(c as PgConnection, sql, set.wire!.chunks));
        return true;
      }
    }
    if (set instanceof SqlRowSet && !this.key && set.count >= COPY_FROM) {
      const cols = this.rows.columnsOf(set.shape);
      if (cols) {
        const out: unknown[] = [];
        let lossy = 0;
        const text = chunked(set.arrays(), (row) => {
          lossy += this.rows.valuesInto(set.shape, row, out);
          return out;
        });
        const d = this.db.dialect;
        await this.db.withConnection((c) => copyChunks(c as PgConnection, `COPY ${d.table(this.o.table)} (${cols.map((x) => d.quote(x.name)).join(', ')}) FROM STDIN`, text));
        this.lossyWritten(lossy);
        return true;
      }
    }
    return super.writeRows(set);
  }

  protected override async load(groups: Group[]): Promise<void> {
    // COPY costs extra round trips: small batches (a busy listener's) go faster as INSERTs.
    if (groups.reduce((n, g) => n + g.rows.length, 0) < COPY_FROM) return super.load(groups);
    if (groups.length === 0) return;
    const d = this.db.dialect;
    const table = d.table(this.o.table);
    const keyNames = this.key?.map((k) => k.name);
    await this.db.withConnection(async (c) => {
      const conn = c as PgConnection;
      const single = groups.length === 1 && !keyNames;
      if (!single) await conn.query('BEGIN');
      try {
        for (const g of groups) {
          const cols = g.cols.map((x) => d.quote(x.name)).join(', ');
          const text = encode(g);
          if (!keyNames) {
            await copyChunks(conn, `COPY ${table} (${cols}) FROM STDIN`, text);
            continue;
          }
          const tmp = d.quote(`bridge_upsert_${createHash('sha256').update(`${this.o.table}\0${cols}`).digest('hex').slice(0, 16)}`);
          await conn.query(`CREATE TEMP TABLE IF NOT EXISTS ${tmp} ON COMMIT DELETE ROWS AS SELECT ${cols} FROM ${table} WITH NO DATA`);
          await copyChunks(conn, `COPY ${tmp} (${cols}) FROM STDIN`, text);
          const update = g.cols.map((x) => x.name).filter((n) => !keyNames.includes(n));
          await conn.query(`INSERT INTO ${table} (${cols}) SELECT ${cols} FROM ${tmp}${d.upsertClause(keyNames, update)}`);
        }
        if (!single) await conn.query('COMMIT');
      } catch (e) {
        if (!single) await conn.query('ROLLBACK').catch(() => {});
        throw e;
      }
    });
  }

  override plan(): PlanItem[] {
    return [...super.plan(), { label: 'load', value: this.key ? 'COPY into a temporary table, then INSERT … ON CONFLICT DO UPDATE, one transaction per batch' : 'COPY FROM STDIN per batch' }];
  }
}
