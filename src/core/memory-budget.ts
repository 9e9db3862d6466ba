import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * One memory budget for the whole process (--memory-budget, MB): when its resident size passes
 * 80 % of the budget, a full garbage collection is asked for (at most every 200 ms). Nearly all of
 * what a copy allocates is short-lived (batches written and let go); V8 collects its old space only
 * when it has grown, and 8 routes at once peaked at 231 MB with 143 MB reachable (measured with
 * --max-old-space-size=96, a hard limit that would kill the process rather than slow it, so not
 * the way here). A collection that leaves the process above the budget means live data is larger
 * (batches in flight): the next check waits longer (up to 5 s, so collections do not take over the
 * run) and one warning names the knobs. 0 turns it off.
 */
export function startMemoryBudget(mb: number, warn: (text: string) => void): () => void {
  if (!(mb > 0)) return () => {};
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const mark = mb * 0.8 * 2 ** 20;
  const budget = mb * 2 ** 20;
  let wait = 200;
  let over = 0;
  let timer: NodeJS.Timeout;
  const check = (): void => {
    if (process.memoryUsage.rss() > mark) {
      gc();
      // The resident size falls as V8 and malloc give pages back, not at once: only a process
      // still over the whole budget after a collection backs off.
      if (process.memoryUsage.rss() > budget) {
        wait = Math.min(wait * 2, 5000);
        if (++over === 5)
          warn(`memory: ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MB in use after collections, above --memory-budget ${mb}: the batches in flight hold it (lower --batch-size, --read-ahead or --parallel, or raise the budget)`);
      } else {
        wait = 200;
        over = 0;
      }
    }
    timer = setTimeout(check, wait).unref();
  };
  timer = setTimeout(check, wait).unref();
  return () => clearTimeout(timer);
}
