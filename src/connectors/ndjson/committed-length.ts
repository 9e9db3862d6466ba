import { open, rename, rm, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { configError } from '../../core/errors.js';

/** What `<file>.bridge-position` holds: the file's length after the last confirmed batch, and the positions it stands for. */
interface Committed {
  bridge_committed: 1;
  length: number;
  routes: Record<string, string>;
}

/**
 * Exactly once into a file (issue 28): after each batch's lines are synced, the file's length and
 * the route's position are written beside it (`<file>.bridge-position`, replaced atomically). A
 * resumed run cuts the file back to that length — lines a killed run wrote after it were never
 * confirmed and come again — and resumes from the position, so no line is torn, lost or repeated.
 */
export class CommittedLength {
  readonly file: string;
  private state: Committed = { bridge_committed: 1, length: 0, routes: {} };
  /** A committed state was read (the file was written by a run that kept one). */
  loaded = false;

  constructor(dataFile: string) {
    this.file = `${dataFile}.bridge-position`;
  }

  /** Reads the committed state; undefined when there is none yet. */
  async load(): Promise<Committed | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
    const s = JSON.parse(text) as Committed;
    if (s?.bridge_committed !== 1 || typeof s.length !== 'number' || typeof s.routes !== 'object') throw configError(`${this.file} is not a bridge position file; delete it to start over`);
    this.state = s;
    this.loaded = true;
    return s;
  }

  /** Forgets what was committed (the file it stood for is gone); written anew with the next batch. */
  reset(): void {
    this.state = { bridge_committed: 1, length: 0, routes: {} };
    this.loaded = false;
  }

  position(route: string): string | undefined {
    return this.state.routes[route];
  }

  /**
   * Cuts the data file back to the committed length (what a killed run wrote after it was never
   * confirmed). A file shorter than that was changed by someone else: refused rather than guessed.
   */
  async cut(fh: FileHandle, dataFile: string): Promise<number> {
    const size = (await fh.stat()).size;
    if (size < this.state.length)
      throw configError(`${dataFile} is ${size} bytes, shorter than the ${this.state.length} bytes bridge confirmed in it: it was changed outside bridge. Delete ${this.file} to deliver into it from scratch`);
    if (size > this.state.length) await fh.truncate(this.state.length);
    return size - this.state.length;
  }

  /** After the data was synced: the new length and the route's position, written to a temporary file, synced, and renamed over. */
  async commit(length: number, route: string | undefined, text: string | undefined): Promise<void> {
    this.state = { ...this.state, length, routes: route === undefined ? this.state.routes : { ...this.state.routes, [route]: text! } };
    const tmp = path.join(path.dirname(this.file), `.${path.basename(this.file)}.${process.pid}`);
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(JSON.stringify(this.state));
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.file);
  }

  /** A fresh copy rewrites the file: the old committed state goes with it. */
  async forget(): Promise<void> {
    await rm(this.file, { force: true });
  }
}
