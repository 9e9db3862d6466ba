import { formatId, idFromSeed, newIdHex } from './ids.js';
import { scanFields, type Fields } from './json-fields.js';

export type Payload = string | Buffer;

/** A payload rendered on first use (a source row's JSON), with a size estimate meanwhile. */
export interface LazyPayload {
  render(): string;
  size(): number;
}
export type Metadata = Record<string, string>;

/**
 * One unit of data moving through a route. The id is computed lazily: most routes never read it,
 * and hashing a million row positions would cost more than rendering the rows.
 */
export class Message {
  private payloadValue: Payload | undefined;
  private lazy: LazyPayload | undefined;
  private fieldsValue: Fields | null | undefined;
  metadata: Metadata | undefined;
  /** True when the producer guarantees the payload is one JSON document (rendered rows). */
  isJson = false;
  /**
   * True when the producer says the payload is text, not a document (a body declared text/*): a
   * sink that holds JSON writes it as a JSON string, never parsed ('123' and '"123"' stay apart).
   */
  isText = false;
  private idValue: bigint | undefined;
  /** A new id's hex digits, kept: most messages of a listener are only ever named in their answer. */
  private idHexValue: string | undefined;
  private readonly seed: string | (() => string) | undefined;

  constructor(payload: Payload, metadata?: Metadata, seed?: string | (() => string), id?: bigint) {
    this.payloadValue = payload;
    this.metadata = metadata;
    this.seed = seed;
    this.idValue = id;
  }

  /**
   * A message whose JSON payload is rendered only when something reads it: sinks that take fields
   * (COPY, columns=auto) never need the text of a row.
   */
  static lazy(source: LazyPayload & Fields, metadata?: Metadata, seed?: string | (() => string)): Message {
    const m = new Message('', metadata, seed);
    m.payloadValue = undefined;
    m.lazy = source;
    m.fieldsValue = source;
    m.isJson = true;
    return m;
  }

  get payload(): Payload {
    if (this.payloadValue === undefined) {
      this.payloadValue = this.lazy!.render();
      this.lazy = undefined;
    }
    return this.payloadValue;
  }

  set payload(p: Payload) {
    this.payloadValue = p;
    this.lazy = undefined;
  }

  get id(): bigint {
    if (this.idValue === undefined) this.idValue = this.seed === undefined ? BigInt('0x' + this.idHex) : idFromSeed(typeof this.seed === 'string' ? this.seed : this.seed());
    return this.idValue;
  }

  /** What the id is made from (`pg:<table>:<commit LSN>:<n>`…), when the producer gave one: a change source reads its place back from it. */
  get seedText(): string | undefined {
    return typeof this.seed === 'function' ? this.seed() : this.seed;
  }

  get idHex(): string {
    if (this.idHexValue !== undefined) return this.idHexValue;
    if (this.idValue === undefined && this.seed === undefined) return (this.idHexValue = newIdHex());
    return formatId(this.id);
  }

  text(): string {
    return typeof this.payload === 'string' ? this.payload : this.payload.toString('utf8');
  }

  bytes(): Buffer {
    return typeof this.payload === 'string' ? Buffer.from(this.payload, 'utf8') : this.payload;
  }

  /** Gives the fields directly (a view over the source row), sparing a scan of the rendered JSON. */
  setFields(fields: Fields): void {
    this.fieldsValue = fields;
  }

  /** Top-level fields of a JSON-object payload with their exact text; null when it is not one. Cached. */
  fields(): Fields | null {
    if (this.fieldsValue === undefined) this.fieldsValue = scanFields(this.text()) ?? null;
    return this.fieldsValue;
  }

  /** Payload bytes; for an unrendered row, the size of its values (close enough for progress figures). */
  get byteLength(): number {
    if (this.payloadValue === undefined) return this.lazy!.size();
    return typeof this.payloadValue === 'string' ? Buffer.byteLength(this.payloadValue) : this.payloadValue.length;
  }
}
