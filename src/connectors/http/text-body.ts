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
  // Parameter by parameter (RFC 9110 §5.6.6): `foo="a;charset=klingon"` holds no charset parameter, and was refused 415.
  const param = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;
  for (let m: RegExpExecArray | null; (m = param.exec(type)); ) {
    if (m[1]!.toLowerCase() !== 'charset') continue;
    const cs = (m[2]?.replace(/\\(.)/g, '$1') ?? m[3])!.trim().toLowerCase();
    return cs === '' ? undefined : cs;
  }
  return undefined;
}

/** What decodes a body, whole or chunk by chunk (TextDecoder's shape). */
interface Decoder {
  decode(input?: Buffer, options?: { stream?: boolean }): string;
}

/** Code points of windows-1252's bytes 0x80–0x9F (the WHATWG index; its five unassigned bytes stay C1 controls). */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/**
 * windows-1252, which the WHATWG labels windows-1252, cp1252, iso-8859-1 and latin1 all name:
 * Node 20's TextDecoder read its 0x80–0x9F as C1 controls, so `€“x”` was stored as U+0080 U+0093
 * x U+0094, answered 204.
 */
const cp1252: Decoder = {
  decode(input?: Buffer): string {
    if (!input) return '';
    let out = '';
    for (let i = 0; i < input.length; i += 8192) {
      const part = input.subarray(i, i + 8192);
      out += String.fromCharCode(...Array.from(part, (b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80]! : b)));
    }
    return out;
  },
};

/**
 * UTF-16 without a byte order in its label: the body's byte order mark says which (RFC 2781 §4.3),
 * little-endian without one (WHATWG). TextDecoder read FE FF 00 68 as little-endian mojibake.
 */
class Utf16 implements Decoder {
  private inner: TextDecoder | undefined;
  private head = Buffer.alloc(0);

  decode(input?: Buffer, options?: { stream?: boolean }): string {
    if (!this.inner) {
      this.head = Buffer.concat([this.head, input ?? Buffer.alloc(0)]);
      if (this.head.length < 2 && options?.stream) return '';
      this.inner = new TextDecoder(this.head[0] === 0xfe && this.head[1] === 0xff ? 'utf-16be' : 'utf-16le', { fatal: true });
      input = this.head;
    }
    return this.inner.decode(input, options);
  }
}

/** A decoder for the charset, or a 415 for one the listener cannot read (TextDecoder knows the WHATWG Encoding labels). */
function decoderOf(charset: string): Decoder {
  let d: TextDecoder;
  try {
    d = new TextDecoder(charset, { fatal: true });
  } catch {
    return unknownCharset(charset);
  }
  if (d.encoding === 'windows-1252') return cp1252;
  if (d.encoding === 'utf-16le' && !/le$/i.test(charset)) return new Utf16();
  return d;
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
  private readonly decoder: Decoder;

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
