import { Readable } from 'node:stream';
import type { PlanItem } from '../../core/route.js';
import { ColumnsWriter, type Group } from '../sql/write/write-columns.js';
import { ChunkPool } from '../sql/write/chunk-buffer.js';
import type { MysqlConnection } from './driver.js';
import { LoadDataEncoder } from './load-data-encoder.js';

/** Fewer rows go faster as one multi-row INSERT than as a LOAD DATA round trip. */
const LOAD_FROM = 256;
/** Packets of at most 1 MB (the server's packet limit is larger; a value over 256 KB makes a chunk of its size). */
const PACKET = 1 << 20;

function* packets(chunks: Buffer[]): Generator<Buffer> {
  for (const c of chunks) for (let i = 0; i < c.length; i += PACKET) yield c.length <= PACKET ? c : c.subarray(i, i + PACKET);
}

/** The group as LOAD DATA text, or undefined when a value is bytes (binary stays on the INSERT path). */
function encode(g: Group, pool: ChunkPool): Buffer[] | undefined {
  const enc = new LoadDataEncoder(pool);
  const year = g.cols.map((c) => c.variant === 'year');
  for (const r of g.rows) if (!enc.row(r.values, year)) return undefined;
  return enc.finish();
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
  /** The encoders' Buffers, reused once the server has read them (two batches load at once). */
  private readonly pool = new ChunkPool(16);

  get concurrency(): number {
    return this.key ? 1 : 2;
  }

  protected override async load(groups: Group[]): Promise<void> {
    const rows = groups.reduce((n, g) => n + g.rows.length, 0);
    if (this.key || this.disabled || rows < LOAD_FROM) return super.load(groups);
    const texts = groups.map((g) => encode(g, this.pool));
    if (texts.some((t) => t === undefined)) return super.load(groups);
    if (!(await this.loadAll(groups, texts as Buffer[][]))) await super.load(groups);
  }

  /** True when every group loaded exactly (committed); false when the batch was rolled back. */
  private async loadAll(groups: Group[], texts: Buffer[][]): Promise<boolean> {
    const d = this.db.dialect;
    const tx = await this.db.begin();
    try {
      const conn = (tx.conn as MysqlConnection).conn;
      for (let i = 0; i < groups.length; i++) {
        const g = groups[i]!;
        const sql = `LOAD DATA LOCAL INFILE 'bridge-batch' INTO TABLE ${d.table(this.o.table)} CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (${g.cols.map((x) => d.quote(x.name)).join(', ')})`;
        const [res] = (await conn.query({ sql, infileStreamFactory: () => Readable.from(packets(texts[i]!)) })) as unknown as [{ affectedRows?: number; warningStatus?: number }];
        // The server answered: it has read every byte of the stream.
        this.pool.give(texts[i]!);
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
