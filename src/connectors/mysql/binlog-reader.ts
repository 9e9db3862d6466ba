import { configError, transientError, type BridgeError } from '../../core/errors.js';
import type { BinlogEvent } from './binlog-changes.js';
import type { BinlogPosition } from './binlog-position.js';

/** The slice of @vlasky/zongji this reader uses. */
interface ZongJi {
  on(event: 'ready' | 'stopped', f: () => void): void;
  on(event: 'binlog', f: (evt: BinlogEvent & { binlogName?: string }) => void): void;
  on(event: 'error', f: (e: Error) => void): void;
  start(options: Record<string, unknown>): void;
  stop(): void;
  connection?: { pause(): void; resume(): void; query(sql: string, cb?: (e: unknown) => void): void };
}

/** Events the assembler needs; row events only of the captured tables (the reader filters them). */
const EVENTS = ['tablemap', 'writerows', 'updaterows', 'deleterows', 'xid', 'query', 'mariadbgtid', 'gtid', 'rotate', 'heartbeat'];

/**
 * The reader's errors are connection trouble (retried), except a change written without column
 * names (binlog_row_metadata was not FULL then) of a table whose columns changed since: decoding
 * it with today's columns would shift values, and no retry helps.
 */
function readerError(e: Error): BridgeError {
  const stale = /^Table (.+) schema changed between binlog event and metadata fetch/.exec(e.message);
  if (stale)
    return configError(
      `the binlog holds changes of ${stale[1]} written without column names (binlog_row_metadata was not FULL then) and its columns changed since: they cannot be decoded exactly; capture from a later position (start_position) or anew (snapshot=initial with another slot_name)`,
    );
  return transientError(`binlog connection: ${e.message}`, e);
}

/** A replica server id from the slot name, in a high range that real servers seldom use (decisions: stable across runs). */
export function defaultServerId(slot: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(slot)) h = Math.imul(h ^ ch, 0x01000193) >>> 0;
  return 0x40000000 + (h % 0x3fffffff);
}

/**
 * One binlog connection through @vlasky/zongji (a replica registration and COM_BINLOG_DUMP over
 * mysql2, so bridge's connection options, TLS and caching_sha2 authentication apply). It starts at a
 * MariaDB GTID position, or at file:pos, and hands every event to `event`, in order; the socket is
 * paused while the source holds too many changes.
 */
export class BinlogReader {
  private z: ZongJi | undefined;
  private lastEvent = Date.now();
  /** Why the source paused the socket (the sink is behind, a table being introspected): no events come then, which is no sign of a dead connection. */
  private readonly pausedBy = new Set<string>();
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly cfg: Record<string, unknown>,
    private readonly serverId: number,
    private readonly database: string,
    /** The captured tables' names; true: every table of the database (tables=*, so that tables created later are seen). */
    private readonly tables: string[] | true,
    private readonly heartbeatMs: number,
  ) {}

  async start(from: BinlogPosition, h: { event(evt: BinlogEvent & { binlogName?: string }): void; failed(e: unknown): void }): Promise<void> {
    const { default: ZongJiClass } = (await import('@vlasky/zongji')) as unknown as { default: new (cfg: Record<string, unknown>) => ZongJi };
    // '+00:00', not bridge's 'Z': the reader formats TIMESTAMPs in this offset, as the copy's session time_zone does.
    const z = new ZongJiClass({ ...this.cfg, timezone: '+00:00' });
    this.z = z;
    let ready = false;
    await new Promise<void>((resolve, reject) => {
      z.on('ready', () => {
        ready = true;
        resolve();
      });
      z.on('error', (e) => {
        const err = readerError(e);
        if (!ready) reject(err);
        else h.failed(err);
      });
      z.on('binlog', (evt) => {
        this.lastEvent = Date.now();
        h.event(evt);
      });
      const opts: Record<string, unknown> = { serverId: this.serverId, includeEvents: EVENTS, includeSchema: { [this.database]: this.tables } };
      if (from.gtid !== undefined) opts.gtidSet = from.gtid;
      else if (from.file !== undefined) Object.assign(opts, { filename: from.file, position: from.pos ?? 4 });
      else opts.startAtEnd = true;
      z.start(opts);
      // Queued on the binlog connection before the reader's own setup: the server then sends a
      // heartbeat when the binlog is quiet, so a dead connection is noticed.
      z.connection?.query(`SET @master_heartbeat_period = ${Math.round(this.heartbeatMs * 1e6)}`, () => {});
    });
    // Neither an event nor a heartbeat for three periods: the connection is dead without having said so.
    this.lastEvent = Date.now();
    this.watchdog = setInterval(() => {
      if (!this.pausedBy.size && Date.now() - this.lastEvent > 3 * this.heartbeatMs) h.failed(transientError(`binlog connection: no event nor heartbeat from the server in ${Math.round((3 * this.heartbeatMs) / 1000)} s`));
    }, this.heartbeatMs);
    this.watchdog.unref();
  }

  /** Stops reading the socket for `why` (the source holds too many changes; a table is being introspected). */
  pause(why: 'flow' | 'schema' = 'flow'): void {
    this.pausedBy.add(why);
    this.z?.connection?.pause();
  }

  /** Reads the socket again once nothing else holds it paused. */
  resume(why: 'flow' | 'schema' = 'flow'): void {
    this.pausedBy.delete(why);
    if (this.pausedBy.size) return;
    this.lastEvent = Date.now();
    this.z?.connection?.resume();
  }

  async stop(): Promise<void> {
    clearInterval(this.watchdog);
    const z = this.z;
    this.z = undefined;
    if (!z) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2000);
      z.on('stopped', () => {
        clearTimeout(t);
        resolve();
      });
      try {
        z.stop();
      } catch {
        clearTimeout(t);
        resolve();
      }
    });
  }
}
