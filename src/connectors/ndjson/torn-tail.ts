import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

const STEP = 64 * 1024;
const NL = 0x0a;
/** A last line longer than this is never kept as a whole line (a hand-written one is not that long). */
const KEEP_AT_MOST = 16 * 1024 * 1024;

/** What was done to a file's unfinished last line. */
export type LastLine = { done: 'none' } | { done: 'ended' } | { done: 'moved'; bytes: number; to: string } | { done: 'separated'; bytes: number };

/** One check per file per process: sinks sharing a file (a table list's dead-letter file) must not trim it while another writes. */
const checked = new Map<string, Promise<LastLine>>();

/**
 * Makes a file about to be appended to end at a line boundary. A run SIGKILLed inside the write
 * of a batch leaves part of a line (the kernel stops a file write between pages); that batch was
 * never confirmed and is delivered again, so the fragment must not be glued onto the first new
 * line. bridge only writes whole lines, so the fragment is moved to `<file>.unfinished-<ms>`
 * (never deleted: the last line may have been written by someone else) and the file cut back.
 * A last line that is a whole JSON object or array was written whole (by hand, or by a tool that
 * omits the final newline) and can never be a torn one: it is kept and given its newline.
 */
export async function endAtLine(file: string): Promise<LastLine> {
  const key = path.resolve(file);
  const earlier = checked.get(key);
  if (earlier) return earlier.then(() => ({ done: 'none' })); // told once, to the first sink
  const p = check(file);
  checked.set(key, p);
  return p;
}

async function check(file: string): Promise<LastLine> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r+');
  } catch {
    return { done: 'none' }; // not readable: appended to as it is
  }
  try {
    const size = (await fh.stat()).size;
    const start = await lineStart(fh, size);
    if (start === size) return { done: 'none' }; // empty, or ends with a newline
    if (size - start <= KEEP_AT_MOST && isWholeDocument(await slice(fh, start, size))) {
      await fh.write('\n', size);
      return { done: 'ended' };
    }
    const to = `${file}.unfinished-${Date.now()}`;
    await copyRange(fh, start, size, to);
    try {
      await fh.truncate(start);
    } catch {
      // An append-only file (chattr +a) cannot be cut: the fragment at least gets a line of its own.
      await fh.write('\n', size);
      return { done: 'separated', bytes: size - start };
    }
    await fh.sync();
    return { done: 'moved', bytes: size - start, to };
  } finally {
    await fh.close();
  }
}

/** Where the last line starts: after the last newline, or 0. Reads back in steps, holding one step. */
async function lineStart(fh: FileHandle, size: number): Promise<number> {
  const buf = Buffer.alloc(STEP);
  for (let end = size; end > 0; ) {
    const from = Math.max(0, end - STEP);
    const n = end - from;
    await fh.read(buf, 0, n, from);
    const nl = buf.subarray(0, n).lastIndexOf(NL);
    if (nl !== -1) return from + nl + 1;
    end = from;
  }
  return 0;
}

async function slice(fh: FileHandle, start: number, end: number): Promise<Buffer> {
  const b = Buffer.alloc(end - start);
  await fh.read(b, 0, b.length, start);
  return b;
}

async function copyRange(fh: FileHandle, start: number, end: number, to: string): Promise<void> {
  const out = await open(to, 'wx');
  try {
    const buf = Buffer.alloc(STEP);
    for (let pos = start; pos < end; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(STEP, end - pos), pos);
      await out.write(buf.subarray(0, bytesRead));
      pos += bytesRead;
    }
    await out.sync();
  } finally {
    await out.close();
  }
}

/** An object or array that parses on its own: no prefix of bridge's lines is one. (A bare number could be a torn longer one.) */
function isWholeDocument(line: Buffer): boolean {
  const text = line.toString('utf8').replace(/^\uFEFF/, '').trim();
  if (!(text.startsWith('{') && text.endsWith('}')) && !(text.startsWith('[') && text.endsWith(']'))) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
