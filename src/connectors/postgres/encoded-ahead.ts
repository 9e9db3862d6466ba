import type { Message } from '../../core/message.js';

/**
 * Batches of changes a keyed mirror was told of ahead (Sink.ahead), converted and encoded while the
 * server is busy with the batch before (prepare), then taken by write as the same array. Upserts
 * load one batch at a time and each `INSERT … SELECT … ON CONFLICT` is a long wait (28 of the ~60 ms
 * each 8,192 changes of a 1M-row UPDATE took): the next batch's encoding goes into that wait, not
 * after it (one 1M-row UPDATE into a mirror: 12.0–12.2 s → 11.0–11.1 s; the initial copy of 1M rows
 * into a mirror: 8.2 s → 7.2–7.8 s).
 */
export class EncodedAhead<T> {
  /** Told of, not yet converted: the last two (the batches read ahead). */
  private waiting: Message[][] = [];
  private readonly ready = new WeakMap<Message[], T>();

  constructor(private readonly convert: (messages: Message[]) => T) {}

  add(messages: Message[]): void {
    this.waiting = [...this.waiting.slice(-1), messages];
  }

  /** Converts what waits; a batch that cannot be (a refused value) is left to write, which names what it refuses. */
  prepare(): void {
    for (const messages of this.waiting.splice(0))
      try {
        this.ready.set(messages, this.convert(messages));
      } catch {
        continue;
      }
  }

  /** The batch as converted ahead, once; undefined if it was not. */
  take(messages: Message[]): T | undefined {
    this.waiting = this.waiting.filter((m) => m !== messages);
    const done = this.ready.get(messages);
    this.ready.delete(messages);
    return done;
  }
}
