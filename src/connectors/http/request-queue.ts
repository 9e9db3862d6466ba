import type { Message } from '../../core/message.js';
import type { SourceBatch } from '../../core/route.js';
import { Wakeup } from '../../core/wakeup.js';
import { CANCELLED, type Outcome } from './responder.js';
import { Deadlines } from './deadlines.js';
import type { Spool } from './spool.js';

interface Entry {
  m: Message;
  done(o: Outcome): void;
  /** Answered (done ran): a rejection that comes after is not this entry's to answer. */
  answered: boolean;
  /** A client waits for the outcome (false once answered 202). */
  waiting: boolean;
  /** Asked when the pipeline takes the entry: a client gone by then has it taken back (never written). */
  via?: Carrier;
}

/** The connection or HTTP/2 stream a request came on: destroyed once its client went away. */
export interface Carrier {
  readonly destroyed: boolean;
}

/**
 * Requests waiting for the sink: the pipeline takes whatever has queued as one batch (no timer), and
 * each entry learns its outcome when its batch is confirmed, failed, or given back. Spooled
 * (fire-and-forget) messages are released from the spool once confirmed.
 */
export class RequestQueue {
  private queue: Entry[] = [];
  /**
   * The batches taken and not yet answered, where reject() finds a message's entry. Not a Map by
   * message: under load each table that Map outgrew had lived long enough to be promoted, and as
   * old garbage it kept the requests it held (bodies, messages, handlers) alive through young
   * collections until the next full one: 1.2-1.6 MB promoted per scavenge at 15-20k requests/s,
   * 4-5 ms pauses; without it 10-75 KB and 1-2.5 ms (`--trace-gc-nvp`, a PostgreSQL sink).
   */
  private readonly taken: Entry[][] = [];
  /** The pipeline's reader waits here for requests. */
  readonly wakeup = new Wakeup();
  /** Streamed requests waiting for room in the buffer (several may wait at once). */
  private roomWaiters: (() => void)[] = [];
  /** request_timeout_ms of each waiting request, one timer per length. */
  private readonly deadlines = new Map<number, Deadlines>();

  constructor(private readonly spool: Spool | undefined) {}

  get length(): number {
    return this.queue.length;
  }

  add(m: Message, done: (o: Outcome) => void, waiting = true, via?: Carrier): void {
    const entry: Entry = {
      m,
      waiting,
      via,
      answered: false,
      done: (o) => {
        entry.answered = true;
        done(o);
      },
    };
    this.queue.push(entry);
    this.wakeup.notify();
  }

  /** Queues a message and resolves with the answer for its client (see `submit`). */
  wait(m: Message, timeoutMs: number, via?: Carrier): Promise<Outcome> {
    return this.submit(m, timeoutMs, via).answer;
  }

  /**
   * Queues a message. `answer` is what its client gets: the outcome, or after `timeoutMs` a 504
   * saying whether the message was taken back (never written) or its write had started (it may
   * still land). A client that went away while its message was queued (`via` destroyed) has it
   * taken back when the pipeline takes the queue: never written, answered CANCELLED. `final` is the
   * outcome of the write itself, however late.
   */
  submit(m: Message, timeoutMs: number, via?: Carrier): { answer: Promise<Outcome>; final: Promise<Outcome> } {
    let settleFinal!: (o: Outcome) => void;
    const final = new Promise<Outcome>((r) => (settleFinal = r));
    let deadlines = this.deadlines.get(timeoutMs);
    if (!deadlines) this.deadlines.set(timeoutMs, (deadlines = new Deadlines(timeoutMs)));
    const answer = new Promise<Outcome>((resolve) => {
      const deadline = deadlines.add(() => {
        if (!this.withdraw(m)) return resolve({ status: 504, error: `no reply within request_timeout_ms (${timeoutMs} ms); its write had started and may still land: retry with the same Idempotency-Key header to have it written once` });
        const o = { status: 504, error: `no reply within request_timeout_ms (${timeoutMs} ms); the message was not written` };
        settleFinal(o);
        resolve(o);
      });
      this.add(
        m,
        (o) => {
          deadlines.clear(deadline);
          settleFinal(o);
          resolve(o);
        },
        true,
        via,
      );
    });
    return { answer, final };
  }

  /** Takes `m` back if the pipeline has not taken it yet: true when it will never be written. */
  private withdraw(m: Message): boolean {
    const i = this.queue.findIndex((e) => e.m === m);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    this.notifyRoom();
    return true;
  }

  /** Resolves once messages leave the queue (taken by the pipeline, or drained), or after `guardMs`. */
  room(guardMs = 1000): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, guardMs);
      this.roomWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private notifyRoom(): void {
    for (const w of this.roomWaiters.splice(0)) w();
  }

  /** Up to `max` queued messages as one batch, or undefined when none is queued. */
  take(max: number, outcomeOf: (e: unknown) => Outcome): SourceBatch | undefined {
    if (this.queue.length === 0) return undefined;
    let taken: Entry[] = [];
    while (taken.length === 0 && this.queue.length > 0) {
      for (const e of this.queue.splice(0, max)) {
        if (e.via?.destroyed) e.done(CANCELLED);
        else taken.push(e);
      }
    }
    this.notifyRoom();
    if (taken.length === 0) return undefined;
    const spool = this.spool;
    this.taken.push(taken);
    const settled = (): void => {
      const i = this.taken.indexOf(taken);
      if (i >= 0) this.taken.splice(i, 1);
    };
    return {
      messages: taken.map((e) => e.m),
      ack: async (replies) => {
        settled();
        taken.forEach((e, i) => e.done({ reply: replies?.[i] }));
        await spool?.confirm(taken.map((e) => e.m));
      },
      fail: async (error) => {
        settled();
        const o = outcomeOf(error);
        for (const e of taken) e.done(o);
      },
      release: async () => {
        settled();
        for (const e of taken) e.done({ status: 503, error: 'the server is stopping' });
      },
    };
  }

  /** The sink refused `m` for good: answered 422, or false when nobody waits for it (answered 202 already). */
  async reject(m: Message, error: Error): Promise<boolean> {
    let e: Entry | undefined;
    for (const batch of this.taken) if ((e = batch.find((x) => x.m === m && !x.answered))) break;
    e?.done({ status: 422, error: error.message });
    // A spooled message is handled (it will not be retried from the spool).
    await this.spool?.confirm([m]);
    return e?.waiting === true;
  }

  /** Answers everything still queued (the listener is closing). */
  drain(o: Outcome): void {
    for (const e of this.queue.splice(0)) e.done(o);
    this.notifyRoom();
  }
}
