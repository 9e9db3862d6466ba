import { Readable } from 'node:stream';
import type { PlanItem } from '../../core/route.js';
import { ColumnsWriter, type Group } from '../sql/write-columns.js';
import type { MysqlConnection } from './driver.js';

/** Fewer rows go faster as one multi-row INSERT than as a LOAD DATA round trip. */
const LOAD_FROM = 256;
const ESCAPES = /[\\\t\n\r\0\x1a]/;
const ESCAPE_MAP: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\x1a': '\\Z' };

/** One value as LOAD DATA's default text format reads it (`\N` is NULL); undefined when it cannot be written as text. */
function field(v: unknown): string | undefined {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'string') return ESCAPES.test(v) ? v.replace(/[\\\t\n\r\0\x1a]/g, (c) => ESCAPE_MAP[c]!) : v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  return undefined;
}

/** The group as LOAD DATA text, or undefined when a value is bytes (binary stays on the INSERT path). */
function encode(g: Group): string | undefined {
  const parts: string[] = [];
  // YEAR reads the text 0 as 2000 (the number 0 an INSERT binds is 0000): written as 0000.
  const year = g.cols.map((c) => c.variant === 'year');
  for (const r of g.rows) {
    let line = '';
    for (let i = 0; i < r.values.length; i++) {
      const v = r.values[i];
      const f = year[i] && v !== null && Number(v) === 0 ? '0000' : field(v);
      if (f === undefined) return undefined;
      line += (i ? '\t' : '') + f;
    }
    parts.push(line);
  }
  return parts.join('\n') + '\n';
}

/** Packets of at most 1 MB (the server's packet limit is larger, the stream's chunks are not). */
function chunksOf(text: string): Buffer[] {
  const all = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < all.length; i += 1 << 20) out.push(all.subarray(i, i + (1 << 20)));
  return out;
}

/**
 * columns=auto appends on MySQL/MariaDB through `LOAD DATA LOCAL INFILE` from memory, in one
 * transaction per batch. With LOCAL the server turns value and duplicate-key errors into warnings
 * and skips or adjusts rows, so a load that reports fewer rows than sent, or any warning, is rolled
 * back and the batch goes through the INSERT path, which rejects the value by name: exact or rejected
 * either way. A server with local_infile=OFF gets INSERTs, after one warning.
 */
export class MysqlColumnsWriter extends ColumnsWriter {
  private disabled = false;

  get concurrency(): number {
    return this.key ? 1 : 2;
  }

  protected override async load(groups: Group[]): Promise<void> {
    const rows = groups.reduce((n, g) => n + g.rows.length, 0);
    if (this.key || this.disabled || rows < LOAD_FROM) return super.load(groups);
    const texts = groups.map(encode);
    if (texts.some((t) => t === undefined)) return super.load(groups);
    if (!(await this.loadAll(groups, texts as string[]))) await super.load(groups);
  }

  /** True when every group loaded exactly (committed); false when the batch was rolled back. */
  private async loadAll(groups: Group[], texts: string[]): Promise<boolean> {
    const d = this.db.dialect;
    const tx = await this.db.begin();
    try {
      const conn = (tx.conn as MysqlConnection).conn;
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i]!;
        const sql = `LOAD DATA LOCAL INFILE 'bridge-batch' INTO TABLE ${d.table(this.o.table)} CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (${g.cols.map((x) => d.quote(x.name)).join(', ')})`;
        const [res] = (await conn.query({ sql, infileStreamFactory: () => Readable.from(chunksOf(texts[i]!)) })) as unknown as [{ affectedRows?: number; warningStatus?: number }];
        if (res.affectedRows !== g.rows.length || res.warningStatus) {
          await tx.rollback();
          return false;
        }
      }
      await tx.commit();
      return true;
    } catch (e) {
      await tx.rollback().catch(() => {});
      const code = (e as { errno?: number }).errno;
      // ER_NOT_ALLOWED_COMMAND (1148) / ER_CLIENT_LOCAL_FILES_DISABLED (3948): local_infile is off.
      if (code !== 1148 && code !== 3948) throw this.db.driver.classify(e);
      this.disabled = true;
      this.o.warn?.(`LOAD DATA LOCAL INFILE is disabled on the server (local_infile=OFF): ${this.o.table} is written with INSERTs; SET GLOBAL local_infile=1 makes copies faster`);
      return false;
    }
  }

  override plan(): PlanItem[] {
    return [...super.plan(), { label: 'load', value: this.key ? 'INSERT … ON DUPLICATE KEY UPDATE per batch' : 'LOAD DATA LOCAL INFILE per batch (in one transaction; a batch with any warning is rolled back and written with INSERTs, which name the value)' }];
  }
}
