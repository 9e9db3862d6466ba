import { isUtf8 } from 'node:buffer';
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, rejectedError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { CommitPosition, DescribedColumn, PlanItem, Sink, SinkContext, SinkPositions } from '../../core/route.js';
import { CommittedLength } from './committed-length.js';
import { toEnvelopeLine } from './envelope.js';
import { endAtLine, type LastLine } from './torn-tail.js';

/** Thrown when stdout's reader went away (`| head`): the route stops quietly. */
export class OutputClosedError extends BridgeError {
  constructor() {
    super('fatal', 'stdout was closed by the reader');
  }

  /** Kept as it is (not made a new "sink: …" error): the run then stops as `| head` expects, exit 0. */
  override on(): BridgeError {
    return this;
  }
}

/** One line per message. Keeps JSON payloads byte for byte; anything else, and text declared so (Message.isText), becomes a JSON string. */
export function toLine(m: Message): string {
  // Bytes become the line's text: bytes that are not UTF-8 would be replaced by U+FFFD, quietly (an octet-stream body to serve).
  if (Buffer.isBuffer(m.payload) && !isUtf8(m.payload))
    throw rejectedError(`message ${m.idHex}: its payload is ${m.payload.length} bytes that are not UTF-8 text, which an NDJSON line holds; write it to a database's bytes column or an HTTP endpoint instead`, undefined, m.idHex);
  let text = m.text();
  if (m.isText) return JSON.stringify(text);
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
  /** Exactly once: the committed length and positions kept beside the file (positions()). */
  private committed: CommittedLength | undefined;
  /** The file's length after the last line written. */
  private length = 0;

  constructor(private readonly ep: Endpoint) {}

  /** A regular file keeps its committed length and the routes' positions beside it (`<file>.bridge-position`). */
  async positions(dryRun: boolean, warn: (text: string) => void): Promise<SinkPositions | undefined> {
    if (this.ep.stdio) return undefined;
    const info = await stat(this.ep.file!).catch(() => undefined);
    if (info && !info.isFile()) return undefined;
    const c = new CommittedLength(this.ep.file!);
    const kept = await c.load();
    // The lines it stands for are gone (the file deleted or emptied to start over): the source's checkpoint decides.
    if (kept && kept.length > 0 && !info?.size) {
      warn(`${c.file} stands for ${kept.length} bytes of ${this.ep.file}, which is ${info ? 'empty' : 'missing'}: its positions are not used (the source's checkpoint is)`);
      c.reset();
    }
    if (!dryRun) this.committed = c;
    return { description: c.file, load: async (route) => c.position(route) };
  }

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
      // A file without a committed length (written before, or by someone else) only gets its torn last line moved aside.
      else if (append && this.committed?.loaded) {
        // What a killed run wrote after its last confirmed batch was never confirmed: it comes again.
        const cut = await this.committed.cut(this.fh, this.ep.file!);
        if (cut) this.warn(`cut ${cut} bytes a stopped run wrote after its last confirmed batch from ${this.ep.file} (that batch is delivered again)`);
      } else if (append) this.noteLastLine(await endAtLine(this.ep.file!));
      else await this.committed?.forget();
      this.length = (await this.fh.stat()).size;
      // The length the file starts from is written before any line: a run killed after syncing its first batch, before that batch's length, has its lines cut by the next.
      if (this.committed && this.durable && !this.committed.loaded) await this.committed.commit(this.length, undefined, undefined);
    } catch (e) {
      if (e instanceof BridgeError) throw e;
      throw new BridgeError('config', `cannot write ${this.ep.file}: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Commits a position alone (a batch without lines). */
  savePosition = async (commit: CommitPosition): Promise<void> => {
    await this.chain;
    await this.committed?.commit(this.length, commit.route, commit.text);
  };

  private noteLastLine(r: LastLine): void {
    const why = 'part of a batch a stopped run was writing; that batch is delivered again';
    if (r.done === 'moved') this.warn(`moved an unfinished last line (${r.bytes} bytes, ${why}) from ${this.ep.file} to ${r.to}`);
    if (r.done === 'separated') this.warn(`${this.ep.file} cannot be cut (append-only): its unfinished last line (${r.bytes} bytes, ${why}) stays, on a line of its own`);
  }

  write(messages: Message[], commit?: CommitPosition): Promise<void> {
    // Writes are serialised so lines keep the order of batches even if the caller overlaps them.
    const run = this.chain.then(() => this.writeNow(messages, commit));
    this.chain = run.catch(() => {});
    return run;
  }

  private async writeNow(messages: Message[], commit: CommitPosition | undefined): Promise<void> {
    if (!this.changesNoted && this.ep.fields.format !== 'envelope' && messages[0]?.metadata?.['bridge.op']) {
      this.changesNoted = true;
      this.warn('change capture into plain NDJSON: the operation (insert/update/delete) is only in message metadata, which plain lines do not keep; add ?format=envelope');
    }
    let out = '';
    if (this.ep.fields.format === 'envelope') for (const m of messages) out += toEnvelopeLine(m, toLine(m)) + '\n';
    else for (const m of messages) out += toLine(m) + '\n';
    if (this.fh) {
      await this.fh.write(out);
      this.length += Buffer.byteLength(out);
      if (this.durable) await this.fh.datasync();
      // After the lines are on disk: the length and the position they stand for.
      if (this.committed && this.durable) await this.committed.commit(this.length, commit?.route, commit?.text);
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
