import { open, type FileHandle } from 'node:fs/promises';
import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { DescribedColumn, PlanItem, Sink, SinkContext } from '../../core/route.js';
import { toEnvelopeLine } from './envelope.js';
import { endAtLine, type LastLine } from './torn-tail.js';

/** Thrown when stdout's reader went away (`| head`): the route stops quietly. */
export class OutputClosedError extends BridgeError {
  constructor() {
    super('fatal', 'stdout was closed by the reader');
  }
}

/** One line per message. Keeps JSON payloads byte for byte; anything else becomes a JSON string. */
export function toLine(m: Message): string {
  let text = m.text();
  if (!m.isJson) {
    try {
      JSON.parse(text);
    } catch {
      return JSON.stringify(text);
    }
  }
  // Raw newlines in valid JSON are insignificant whitespace: flatten them to keep one line.
  if (text.includes('\n') || text.includes('\r')) text = text.replace(/[\r\n]+/g, ' ');
  return text;
}

/** Writes payloads as NDJSON to stdout or a file (a fresh `copy` rewrites it; resuming runs append). */
export class NdjsonSink implements Sink {
  private fh: FileHandle | undefined;
  private durable = false;
  private chain: Promise<void> = Promise.resolve();
  private warn: (s: string) => void = () => {};
  private changesNoted = false;

  constructor(private readonly ep: Endpoint) {}

  async open(ctx: SinkContext): Promise<void> {
    this.durable = ctx.durable;
    this.warn = ctx.warn;
    if (this.ep.stdio || ctx.dryRun) return;
    try {
      // A fresh copy rewrites the file; a run that resumes from a kept position (cursor_id, a queue,
      // change capture) or follows must append, or a restart would wipe what earlier runs delivered.
      const append = !(ctx.mode === 'copy' && !ctx.durable);
      this.fh = await open(this.ep.file!, append ? 'a' : 'w');
      // Pipes and devices (/dev/null, FIFOs) cannot be synced; only regular files are.
      if (!(await this.fh.stat()).isFile()) this.durable = false;
      else if (append) this.noteLastLine(await endAtLine(this.ep.file!));
    } catch (e) {
      throw new BridgeError('config', `cannot write ${this.ep.file}: ${(e as Error).message}`, { cause: e });
    }
  }

  private noteLastLine(r: LastLine): void {
    const why = 'part of a batch a stopped run was writing; that batch is delivered again';
    if (r.done === 'moved') this.warn(`moved an unfinished last line (${r.bytes} bytes, ${why}) from ${this.ep.file} to ${r.to}`);
    if (r.done === 'separated') this.warn(`${this.ep.file} cannot be cut (append-only): its unfinished last line (${r.bytes} bytes, ${why}) stays, on a line of its own`);
  }

  write(messages: Message[]): Promise<void> {
    // Writes are serialised so lines keep the order of batches even if the caller overlaps them.
    const run = this.chain.then(() => this.writeNow(messages));
    this.chain = run.catch(() => {});
    return run;
  }

  private async writeNow(messages: Message[]): Promise<void> {
    if (!this.changesNoted && this.ep.fields.format !== 'envelope' && messages[0]?.metadata?.['bridge.op']) {
      this.changesNoted = true;
      this.warn('change capture into plain NDJSON: the operation (insert/update/delete) is only in message metadata, which plain lines do not keep; add ?format=envelope');
    }
    let out = '';
    if (this.ep.fields.format === 'envelope') for (const m of messages) out += toEnvelopeLine(m, toLine(m)) + '\n';
    else for (const m of messages) out += toLine(m) + '\n';
    if (this.fh) {
      await this.fh.write(out);
      if (this.durable) await this.fh.datasync();
      return;
    }
    await writeStdout(out);
  }

  async close(): Promise<void> {
    await this.chain;
    await this.fh?.close();
    this.fh = undefined;
  }

  async plan(): Promise<PlanItem[]> {
    return [{ label: 'sink', value: this.ep.stdio ? 'NDJSON lines to stdout' : `NDJSON lines to ${this.ep.file}` }];
  }

  /**
   * What a JSON line cannot carry of a typed column, flagged in the plan: a json document is a
   * field's value, and the whitespace around it (kept by PostgreSQL json) is syntax between tokens
   * that no reader keeps; the document null and SQL NULL are the same `null`.
   */
  planMapping(columns: DescribedColumn[]): PlanItem[] {
    return columns.map((c) => {
      const lossy: string[] = [];
      if (c.type === 'json' && c.kind === 'postgres' && c.dbType === 'json') lossy.push('whitespace around the document is JSON syntax in a line, not part of the value: read back without it');
      if (c.type === 'json' && c.nullable) lossy.push('the document null reads back as SQL NULL (both are null in a line)');
      return { label: `  ${c.name} ${c.dbType}`, value: `→ JSON value${lossy.length ? `  LOSSY: ${lossy.join('; ')}` : ''}` };
    });
  }
}

let stdoutClosed = false;
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') stdoutClosed = true;
});

/** Resolves once stdout took the text (the write callback: flushed or handed to the OS), which is the backpressure. */
function writeStdout(text: string): Promise<void> {
  if (stdoutClosed) return Promise.reject(new OutputClosedError());
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) => {
      if (!err) return resolve();
      reject((err as NodeJS.ErrnoException).code === 'EPIPE' ? new OutputClosedError() : err);
    });
  });
}
