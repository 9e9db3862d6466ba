import { link, mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BridgeError } from '../core/errors.js';
import type { CheckpointStore } from './envelope.js';
import { alive } from './lease.js';


/**
 * Positions in a local JSON file `{ "<key>": <value>, ... }`, for read-only sources. Every write
 * goes to a temp file that is fsynced and renamed over the old one, so a crash leaves the old or
 * the new file, never half of one; a lock file serialises writers.
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly description: string;

  constructor(private readonly file: string) {
    this.description = `file ${path.basename(file)}`;
  }

  async open(): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
  }

  private async readAll(): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new BridgeError('fatal', `cannot read the checkpoint file: ${(e as Error).message}`, { cause: e });
    }
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* reported below */
    }
    throw new BridgeError('config', `the checkpoint file ${path.basename(this.file)} is not a JSON object; move it away to start over`);
  }

  private async writeAll(all: Record<string, unknown>): Promise<void> {
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(JSON.stringify(all, null, 2) + '\n');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.file);
    const dir = await open(path.dirname(this.file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /**
   * Runs `fn` holding `<file>.lock`. The lock appears with our pid already in it (written to a
   * private file, then hard-linked into place, which fails if the lock exists), so a kill can never
   * leave an empty lock. A lock whose holder is dead, an empty one (an older bridge killed between
   * create and write) older than 1 s, or any lock older than 10 s is stale and taken over.
   */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    const lock = `${this.file}.lock`;
    const mine = `${lock}.${process.pid}`;
    await writeFile(mine, String(process.pid));
    try {
      for (let i = 0; ; i++) {
        try {
          await link(mine, lock).catch(async (e: NodeJS.ErrnoException) => {
            // A filesystem without hard links: create-exclusive, then write (the empty-lock rule covers a kill between).
            if (e.code === 'EEXIST') throw e;
            await writeFile(lock, String(process.pid), { flag: 'wx' });
          });
          break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
          const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
          const holder = Number(await readFile(lock, 'utf8').catch(() => 'gone'));
          const stale = age > 10_000 || (holder > 0 && !alive(holder)) || (holder === 0 && age > 1_000);
          if (stale) await unlink(lock).catch(() => {});
          else if (i > 1_500) throw new BridgeError('transient', `the checkpoint file is locked by another process (${lock})`);
          else await new Promise((r) => setTimeout(r, 10));
        }
      }
    } finally {
      await unlink(mine).catch(() => {});
    }
    try {
      return await fn();
    } finally {
      await unlink(lock).catch(() => {});
    }
  }

  async load(key: string): Promise<string | undefined> {
    const all = await this.readAll();
    return Object.hasOwn(all, key) ? JSON.stringify(all[key]) : undefined;
  }

  async put(key: string, text: string): Promise<void> {
    await this.locked(async () => {
      const all = await this.readAll();
      all[key] = JSON.parse(text) as unknown;
      await this.writeAll(all);
    });
  }

  async swap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    return this.locked(async () => {
      const all = await this.readAll();
      const current = Object.hasOwn(all, key) ? JSON.stringify(all[key]) : undefined;
      if (current !== expected) return false;
      if (next === undefined) delete all[key];
      else all[key] = JSON.parse(next) as unknown;
      await this.writeAll(all);
      return true;
    });
  }

  async close(): Promise<void> {}
}
