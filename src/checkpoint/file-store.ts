import { mkdir, open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { BridgeError } from '../core/errors.js';
import type { CheckpointStore, Envelope } from './envelope.js';

/**
 * Positions in a local JSON file `{ "<cursor_id>": <envelope>, ... }`, for read-only sources.
 * Every save writes a temp file, fsyncs it and renames it over the old one, so a crash leaves
 * either the old or the new file, never half of one.
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

  async load(cursorId: string): Promise<string | undefined> {
    const all = await this.readAll();
    return Object.hasOwn(all, cursorId) ? JSON.stringify(all[cursorId]) : undefined;
  }

  async save(cursorId: string, envelope: Envelope): Promise<void> {
    const all = await this.readAll();
    all[cursorId] = envelope;
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

  async close(): Promise<void> {}
}
