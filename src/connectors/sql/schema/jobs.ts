/** Work started as it comes, `n` at a time; `done()` waits for all of it (a job's failure is its own to report). */
export class Jobs {
  private readonly waiting: (() => Promise<void>)[] = [];
  private running = 0;
  private readonly idle: (() => void)[] = [];

  constructor(private readonly n: number) {}

  add(job: () => Promise<void>): void {
    this.waiting.push(job);
    this.pump();
  }

  done(): Promise<void> {
    return this.running === 0 && this.waiting.length === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.running < this.n && this.waiting.length) {
      const job = this.waiting.shift()!;
      this.running++;
      void job()
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.pump();
          if (this.running === 0 && this.waiting.length === 0) for (const f of this.idle.splice(0)) f();
        });
    }
  }
}

/** Runs `fn` on every item, `n` at a time. */
export async function atOnce<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
}
