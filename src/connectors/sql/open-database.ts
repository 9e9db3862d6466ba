import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError } from '../../core/errors.js';
import { Database } from './database.js';
import type { KindDriver } from './kind.js';
import { Pool } from './pool.js';

interface SharedEntry {
  ready: Promise<Database>;
  refs: number;
}
const shared = new Map<string, SharedEntry>();

function poolKey(ep: Endpoint): string {
  const f = ep.fields;
  return JSON.stringify([ep.kind, ep.url?.base ?? ep.file, ep.passthrough, f.username, f.password, f.tls, f.max_connections, f.min_connections, f.acquire_timeout_ms, f.idle_timeout_ms, f.max_lifetime_ms, f.test_before_acquire]);
}

/**
 * Opens (or, with shared=true, reuses) the pool of an endpoint and checks that it connects.
 * Connection failures here are the run's "cannot connect" (exit 3). Routes that open the same
 * pool at the same moment (several tables, a route file) wait for the one being connected.
 */
export async function openDatabase(ep: Endpoint, driver: KindDriver, warn: (s: string) => void): Promise<{ db: Database; release(): Promise<void> }> {
  if (ep.fields.shared === false) {
    const db = await connect(ep, driver, warn);
    return { db, release: () => db.pool.close() };
  }
  const key = poolKey(ep);
  let entry = shared.get(key);
  if (!entry) {
    const fresh: SharedEntry = { ready: connect(ep, driver, warn), refs: 0 };
    fresh.ready.catch(() => shared.get(key) === fresh && shared.delete(key));
    shared.set(key, (entry = fresh));
  }
  const e = entry;
  e.refs++;
  let db: Database;
  try {
    db = await e.ready;
  } catch (err) {
    e.refs--;
    throw err;
  }
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    if (--e.refs > 0) return;
    if (shared.get(key) === e) shared.delete(key);
    await db.pool.close();
  };
  return { db, release };
}

async function connect(ep: Endpoint, driver: KindDriver, warn: (s: string) => void): Promise<Database> {
  const f = ep.fields;
  const memory = ep.file === ':memory:';
  const pool = new Pool(driver.poolFactory(ep, warn), {
    // One in-memory SQLite connection is one database: more would each see an empty one.
    max: memory ? 1 : (f.max_connections as number),
    min: f.min_connections as number,
    acquireTimeoutMs: f.acquire_timeout_ms as number,
    idleTimeoutMs: f.idle_timeout_ms as number,
    maxLifetimeMs: f.max_lifetime_ms as number,
    testBeforeAcquire: f.test_before_acquire as boolean,
  });
  try {
    await pool.warm();
  } catch (e) {
    await pool.close();
    throw e instanceof BridgeError ? e : driver.classify(e, true);
  }
  return new Database(driver, pool);
}
