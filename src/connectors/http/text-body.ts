import { TextDecoder } from 'node:util';
import { notUtf8 } from '../../core/utf8.js';

/**
 * Text bodies are read in the charset their Content-Type names, UTF-8 without one (RFC 8259 for
 * JSON). Decoding with toString('utf8') put U+FFFD in place of what it could not read and the
 * message was written changed: a Latin-1 'café', a `charset=ISO-8859-1` body (Apache HttpClient's
 * StringEntity default), and a character cut between two chunks of a streamed request.
 */
export class BodyNotText extends Error {
  constructor(
    readonly status: 400 | 415,
    message: string,
  ) {
    super(message);
  }
}

const UTF8 = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'us-ascii', 'ascii']);

/** The charset parameter of a Content-Type, lower-case; undefined without one. */
export function charsetOf(type: string): string | undefined {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(type);
  const cs = (m?.[1] ?? m?.[2])?.trim().toLowerCase();
  return cs === '' ? undefined : cs;
}

/** A decoder for the charset, or a 415 for one the listener cannot read (TextDecoder knows the WHATWG Encoding labels). */
function decoderOf(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset, { fatal: true });
  } catch {
    return unknownCharset(charset);
  }
}

function unknownCharset(charset: string): never {
  throw new BodyNotText(415, `charset ${charset} is not one the listener can read; send UTF-8 (or another charset of the WHATWG Encoding standard)`);
}

/** Whether a body of this Content-Type is text (read in its charset) rather than bytes: JSON, text, NDJSON, SSE, or no type. */
export const isTextType = (type: string): boolean => type === '' || /json|text|ndjson|event-stream/i.test(type);

/** application/json and the +json types (problem+json, ld+json…): one JSON document, not NDJSON or JSON text sequences. */
export const declaresJson = (type: string): boolean => /^\s*application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(type);

/** A 400 naming `what` unless `text` is one JSON document: a body that says it is JSON and is not was taken as text. */
export function mustBeJson(text: string, what: string): void {
  try {
    JSON.parse(text);
  } catch (e) {
    throw new BodyNotText(400, `${what} is not JSON (${(e as Error).message}); send valid JSON, or another Content-Type for text`);
  }
}

/** A whole text body as a string, exactly, or BodyNotText. */
export function decodeText(body: Buffer, type: string): string {
  const charset = charsetOf(type);
  if (charset === undefined || UTF8.has(charset)) {
    const text = body.toString('utf8');
    const bad = notUtf8(body, text);
    if (bad !== undefined) throw new BodyNotText(400, `the body is not UTF-8 (bytes ${bad}); send UTF-8, or name the body's charset in Content-Type`);
    // A leading byte order mark is the encoding's signature, not text: TextDecoder (streamed bodies, other charsets) drops it too.
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  try {
    return decoderOf(charset).decode(body);
  } catch (e) {
    if (e instanceof BodyNotText) throw e;
    throw new BodyNotText(400, `the body is not ${charset}, which its Content-Type says it is`);
  }
}

/** Decodes a streamed body chunk by chunk: a character cut between two chunks is read whole. */
export class StreamText {
  private readonly decoder: TextDecoder;

  private readonly charset: string;

  constructor(type: string) {
    const cs = charsetOf(type);
    // us-ascii is UTF-8's first half: TextDecoder would read the label as windows-1252.
    this.charset = cs === undefined || UTF8.has(cs) ? 'utf-8' : cs;
    this.decoder = decoderOf(this.charset);
  }

  write(chunk: Buffer): string {
    try {
      return this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new BodyNotText(400, `the body is not ${this.charset === 'utf-8' ? 'UTF-8' : this.charset}, which its Content-Type says it is; send it so, or name its charset in Content-Type`);
    }
  }

  end(): string {
    try {
      return this.decoder.decode();
    } catch {
      throw new BodyNotText(400, 'the body ends inside a character');
    }
  }
}
