import { existsSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, configError, type ErrorKind } from '../../core/errors.js';
import { wrap } from '../sql/errors.js';
import { movedKeyParts, movedKeyReason } from '../sql/write/moved-key.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection, SqlResult } from '../sql/types.js';
import { bytesSql, refuseReplaced, suspectCells } from './text-bytes.js';
import { sqliteType } from './types.js';

type Db = import('better-sqlite3').Database;
type Statement = import('better-sqlite3').Statement;

/** How long a statement waits for another connection's lock before SQLITE_BUSY is reported. */
const BUSY_WAIT_MS = 5000;

const bindable = (v: unknown): unknown => (typeof v === 'boolean' ? (v ? 1 : 0) : v === undefined ? null : v);

/** better-sqlite3 behind the async interface; statements are prepared once per connection. */
export class SqliteConnection implements SqlConnection {
  private readonly cache = new Map<string, Statement>();

  constructor(readonly db: Db) {}

  prepare(sql: string): Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      if (this.cache.size > 200) this.cache.clear();
      this.cache.set(sql, s);
    }
    return s;
  }

  /**
   * A locked database is waited for here, asynchronously: better-sqlite3's own busy timeout waits
   * by blocking the thread, and when the lock is held by another connection of this process (two
   * routes writing one file) that holder can then never commit. SQLite says which statements may
   * be tried again after SQLITE_BUSY: one outside a transaction, and COMMIT (a reader of a
   * rollback-journal file holds it off). Any other statement inside a transaction is not repeated:
   * its batch is what must be retried (transient).
   */
  async query(sql: string, params: readonly unknown[] = []): Promise<SqlResult> {
    const inTransaction = this.db.inTransaction && !/^\s*(COMMIT|END)\b/i.test(sql);
    return inTransaction ? this.run(sql, params) : whenFree(() => this.run(sql, params));
  }

  private run(sql: string, params: readonly unknown[]): SqlResult {
    const stmt = this.prepare(sql);
    const args = params.map(bindable);
    if (stmt.reader) {
      const rows = stmt.raw(true).safeIntegers(true).all(...args) as unknown[][];
      // A statement that writes (UPDATE … RETURNING of a lease) cannot be read again: its values are taken as read.
      const cells = stmt.readonly ? suspectCells(rows) : [];
      if (cells.length > 0) refuseReplaced(rows, cells, this.asBytes(sql, stmt.columns().length, args), (j) => stmt.columns()[j]!);
      return { rows, fields: stmt.columns().map((c) => ({ name: c.name, ...sqliteType(c.type) })), affected: 0 };
    }
    const r = stmt.run(...args);
    return { rows: [], fields: [], affected: r.changes };
  }

  /** The statement's rows read again with every value as bytes (text-bytes.ts); undefined if it cannot be (a PRAGMA). */
  asBytes(sql: string, width: number, args: readonly unknown[]): unknown[][] | undefined {
    try {
      return this.db.prepare(bytesSql(sql, width)).raw(true).all(...args) as unknown[][];
    } catch {
      return undefined;
    }
  }
}

/** Runs `fn`, trying it again while another connection holds the lock it needs (SQLITE_BUSY), up to BUSY_WAIT_MS, without blocking the thread. */
async function whenFree<T>(fn: () => T): Promise<T> {
  for (let waited = 0; ; ) {
    try {
      return fn();
    } catch (e) {
      if (!String((e as { code?: string })?.code ?? '').startsWith('SQLITE_BUSY') || waited >= BUSY_WAIT_MS) throw e;
      const ms = Math.min(50, 1 + waited / 8);
      await new Promise((r) => setTimeout(r, ms));
      waited += ms;
    }
  }
}

/** The reason in the error a key= merge's guard raises (SqliteDialect.upsertClause), or undefined. */
function movedKeyOf(message: string): string | undefined {
  const path = /(?:bad JSON path:|JSON path error near) '([\s\S]*)'$/.exec(message)?.[1]?.replace(/''/g, "'");
  const parts = path === undefined ? undefined : movedKeyParts(path);
  return parts && movedKeyReason(...parts, 'equal by its collation: NOCASE, RTRIM', 'make the key column COLLATE BINARY, or key by one that is');
}

export function classifySqlite(e: unknown, connecting = false): BridgeError {
  if (e instanceof BridgeError) return e;
  const code = String((e as { code?: string })?.code ?? '');
  const moved = code === 'SQLITE_ERROR' ? movedKeyOf((e as Error).message) : undefined;
  if (moved) return wrap('rejected', Object.assign(e as Error, { message: moved }), '');
  let kind: ErrorKind = 'fatal';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) kind = 'transient';
  else if (code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG') kind = 'rejected';
  // better-sqlite3 refuses a value it cannot bind (an integer beyond 64 bits): that value's message, not the run.
  else if (e instanceof RangeError && /too big|bound/i.test(e.message)) kind = 'rejected';
  else if (code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_NOTADB' || connecting) kind = 'connect';
  return wrap(kind, e, connecting ? 'cannot open SQLite database: ' : '', code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE');
}

const PRAGMA_VALUE = /^[A-Za-z0-9_.-]+$/;

export function sqlitePoolFactory(ep: Endpoint): PoolFactory<SqliteConnection> {
  const file = ep.file!;
  if (ep.fields.tls !== undefined) throw configError('tls does not apply to SQLite (an embedded file database); remove it');
  for (const [k, v] of ep.passthrough)
    if (!/^[a-z_]+$/.test(k) || !PRAGMA_VALUE.test(v)) throw configError(`${k}=${v} is neither a field of the SQLite connector nor a PRAGMA setting`);
  let first = true;
  return {
    async create() {
      const Database = (await import('better-sqlite3')).default;
      const memory = file === ':memory:';
      const isNew = !memory && !existsSync(file);
      if (isNew && ep.role === 'consumer') throw new BridgeError('connect', `cannot open SQLite database ${file}: no such file`);
      let db: Db;
      try {
        db = new Database(file, { timeout: 0 });
      } catch (e) {
        throw classifySqlite(e, true);
      }
      try {
        db.function('bridge_key_hash', { deterministic: true }, (text: unknown) => crc32(String(text)));
        // A file bridge creates gets WAL, so readers and the writer do not block each other. Setting
        // it (and a PRAGMA of the URL) needs the file to itself: a reader of the moment is waited for.
        if (isNew) await whenFree(() => db.pragma('journal_mode = WAL'));
        if (first && ep.passthrough.length > 0) {
          const known = new Set(db.prepare('SELECT name FROM pragma_pragma_list').pluck().all() as string[]);
          for (const [k] of ep.passthrough) if (!known.has(k)) throw configError(`${k} is neither a field of the SQLite connector nor a PRAGMA SQLite knows`);
          first = false;
        }
        for (const [k, v] of ep.passthrough) await whenFree(() => db.pragma(`${k} = ${v}`));
      } catch (e) {
        db.close();
        throw classifySqlite(e, true);
      }
      return new SqliteConnection(db);
    },
    async destroy(c) {
      c.db.close();
    },
    async ping(c) {
      c.db.prepare('SELECT 1').get();
    },
    // A connection that failed inside a transaction (a COMMIT that never got its lock) is not given out again.
    isBroken: (c) => c.db.inTransaction,
  };
}
