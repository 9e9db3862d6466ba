import { formatId, idFromSeed, newId } from './ids.js';
import { scanFields, type Fields } from './json-fields.js';

export type Payload = string | Buffer;
export type Metadata = Record<string, string>;

/**
 * One unit of data moving through a route. The id is computed lazily: most routes never read it,
 * and hashing a million row positions would cost more than rendering the rows.
 */
export class Message {
  payload: Payload;
  metadata: Metadata | undefined;
  /** True when the producer guarantees the payload is one JSON document (rendered rows). */
  isJson = false;
  private idValue: bigint | undefined;
  private readonly seed: string | undefined;

  constructor(payload: Payload, metadata?: Metadata, seed?: string, id?: bigint) {
    this.payload = payload;
    this.metadata = metadata;
    this.seed = seed;
    this.idValue = id;
  }

  get id(): bigint {
    if (this.idValue === undefined) this.idValue = this.seed === undefined ? newId() : idFromSeed(this.seed);
    return this.idValue;
  }

  get idHex(): string {
    return formatId(this.id);
  }

  text(): string {
    return typeof this.payload === 'string' ? this.payload : this.payload.toString('utf8');
  }

  bytes(): Buffer {
    return typeof this.payload === 'string' ? Buffer.from(this.payload, 'utf8') : this.payload;
  }

  private fieldsValue: Fields | null | undefined;

  /** Top-level fields of a JSON-object payload with their exact text; null when it is not one. Cached. */
  fields(): Fields | null {
    if (this.fieldsValue === undefined) this.fieldsValue = scanFields(this.text()) ?? null;
    return this.fieldsValue;
  }

  get byteLength(): number {
    return typeof this.payload === 'string' ? Buffer.byteLength(this.payload) : this.payload.length;
  }
}
