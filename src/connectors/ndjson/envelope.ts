import { parseId } from '../../core/ids.js';
import { Message, type Metadata } from '../../core/message.js';

/** `{"id":…,"metadata":…,"payload":…}`: a message with its identity, for files that must keep it. */
export function toEnvelopeLine(m: Message, payloadJson: string): string {
  return `{"id":"${m.idHex}","metadata":${JSON.stringify(m.metadata ?? {})},"payload":${payloadJson}}`;
}

/** Parses an envelope line back into a message; throws with a reason when the shape is wrong. */
export function fromEnvelope(value: unknown): Message {
  if (!value || typeof value !== 'object' || Array.isArray(value) || !('payload' in value)) throw new Error('an envelope line needs a "payload" key');
  const v = value as { id?: unknown; metadata?: unknown; payload: unknown };
  let metadata: Metadata | undefined;
  if (v.metadata !== undefined) {
    if (!v.metadata || typeof v.metadata !== 'object' || Array.isArray(v.metadata)) throw new Error('"metadata" must be an object');
    metadata = Object.fromEntries(Object.entries(v.metadata as Record<string, unknown>).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]));
  }
  const id = typeof v.id === 'string' ? parseId(v.id) : undefined;
  const isString = typeof v.payload === 'string';
  const m = new Message(isString ? (v.payload as string) : JSON.stringify(v.payload), metadata, undefined, id);
  m.isJson = !isString;
  return m;
}
