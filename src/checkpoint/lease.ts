import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { BridgeError, configError } from '../core/errors.js';
import type { CheckpointStore } from './envelope.js';

interface LeaseRecord {
  bridge_lease: 1;
  owner: string;
  host: string;
  pid: number;
  expires_at_ms: number;
}

const TTL_MS = 30_000;

/**
 * Whether a process of this host still runs (EPERM: it does, under another user). A process
 * killed but not yet reaped by its parent still answers signal 0; on Linux its state says it is
 * a zombie. Under a container init that does not reap, it would otherwise hold a lease until the
 * lease expires, and `kill -9` then a restart would be refused for 30 s.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // "pid (comm) S …": the state follows the last ')' (comm may itself contain one).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^\s*[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 1));
  } catch {
    return false; // no /proc (macOS): signal 0 is all there is
  }
}

/**
 * Makes one process the only writer of a cursor_id: a lease record next to the checkpoint, taken
 * with compare-and-set and renewed every 10 s. A second process is refused while the lease is
 * live; one left by a process that died is taken over when it expires (30 s), or at once when
 * the holder ran on this host and is gone.
 */
export class Lease {
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private held: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastRenewal = 0;
  private lostError: BridgeError | undefined;

  constructor(
    private readonly store: CheckpointStore,
    private readonly cursorId: string,
  ) {}

  private get key(): string {
    return `${this.cursorId}.lease`;
  }

  private record(): string {
    const r: LeaseRecord = { bridge_lease: 1, owner: this.owner, host: hostname(), pid: process.pid, expires_at_ms: Date.now() + TTL_MS };
    return JSON.stringify(r);
  }

  async acquire(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.store.load(this.key);
      if (current !== undefined) {
        let r: LeaseRecord | undefined;
        try {
          r = JSON.parse(current) as LeaseRecord;
        } catch {
          r = undefined;
        }
        const stale = !r || r.expires_at_ms < Date.now() || (r.host === hostname() && r.pid !== process.pid && !alive(r.pid));
        if (!stale)
          throw configError(
            `cursor_id ${this.cursorId} is in use by another bridge (${r!.host}, pid ${r!.pid}) until ${new Date(r!.expires_at_ms).toISOString()}: stop it first, or use another cursor_id`,
          );
      }
      const next = this.record();
      if (await this.store.swap(this.key, current, next)) {
        this.held = next;
        this.lastRenewal = Date.now();
        this.timer = setInterval(() => void this.renew(), TTL_MS / 3);
        this.timer.unref();
        return;
      }
    }
    throw configError(`cursor_id ${this.cursorId} is being taken by another bridge at this moment: try again, or use another cursor_id`);
  }

  private async renew(): Promise<void> {
    if (!this.held) return;
    try {
      const next = this.record();
      if (await this.store.swap(this.key, this.held, next)) {
        this.held = next;
        this.lastRenewal = Date.now();
        return;
      }
      this.lostError = new BridgeError('fatal', `another bridge took cursor_id ${this.cursorId} over: stopping so that only one writes its position`);
    } catch (e) {
      if (Date.now() - this.lastRenewal > TTL_MS)
        this.lostError = new BridgeError('fatal', `could not renew the lease on cursor_id ${this.cursorId} for ${TTL_MS / 1000} s (${(e as Error).message}): stopping`);
    }
  }

  /** Throws when the lease was lost (taken over, or not renewable): positions must not be written then. */
  check(): void {
    if (this.lostError) throw this.lostError;
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    if (!this.held) return;
    const held = this.held;
    this.held = undefined;
    await this.store.swap(this.key, held, undefined).catch(() => {});
  }
}
