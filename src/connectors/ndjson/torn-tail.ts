import type { FileHandle } from 'node:fs/promises';

const STEP = 64 * 1024;
const NL = 0x0a;

/**
 * Makes a file about to be appended to end at a line boundary. A run SIGKILLed inside the write
 * of a batch leaves part of a line (the kernel stops a file write between pages); that batch was
 * never confirmed and is delivered again, so the fragment is cut off rather than glued onto the
 * first new line. A last line that parses as JSON on its own was written whole (by hand, or by
 * a tool that omits the final newline): it is kept and ended with a newline instead.
 * Returns the number of bytes cut (0 when none). `fh` must be open for reading and appending.
 */
export async function endAtLine(fh: FileHandle): Promise<number> {
  const size = (await fh.stat()).size;
  if (size === 0) return 0;
  const lastByte = Buffer.alloc(1);
  await fh.read(lastByte, 0, 1, size - 1);
  if (lastByte[0] === NL) return 0;
  // Walk back to the last newline; the fragment after it is as long as the line being written was.
  const parts: Buffer[] = [];
  let end = size;
  let start = 0;
  while (end > 0) {
    const from = Math.max(0, end - STEP);
    const buf = Buffer.alloc(end - from);
    await fh.read(buf, 0, buf.length, from);
    const nl = buf.lastIndexOf(NL);
    parts.unshift(nl === -1 ? buf : buf.subarray(nl + 1));
    if (nl !== -1) {
      start = from + nl + 1;
      break;
    }
    end = from;
  }
  if (isWholeJson(Buffer.concat(parts))) {
    await fh.write('\n');
    return 0;
  }
  await fh.truncate(start);
  return size - start;
}

function isWholeJson(line: Buffer): boolean {
  try {
    JSON.parse(line.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}
