import { describe, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { startMemoryBudget } from '../../src/core/memory-budget.js';

describe('--memory-budget', () => {
  it('a process over its budget after collections is told so once, naming the knobs', async () => {
    const warnings: string[] = [];
    // 1 MB: no Node process fits, so every check collects, stays over, backs off (0.2 + 0.4 + 0.8 + 1.6 + 3.2 s).
    const stop = startMemoryBudget(1, (t) => warnings.push(t));
    await new Promise((r) => setTimeout(r, 8000));
    stop();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^memory: \d+ MB in use after collections, above --memory-budget 1: .*lower --batch-size, --read-ahead or --parallel, or raise the budget/);
  }, 15_000);

  it('0 is off: nothing checks, nothing warns', async () => {
    const warnings: string[] = [];
    const stop = startMemoryBudget(0, (t) => warnings.push(t));
    await new Promise((r) => setTimeout(r, 500));
    stop();
    expect(warnings).toEqual([]);
  });

  it('a value that is not a whole number of MB is a usage error naming the flag', async () => {
    const r = await bridge(['copy', 'sqlite://:memory:?table=t', '-', '--memory-budget', '-5']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--memory-budget/);
    const f = await bridge(['run', 'missing.yaml', '--memory-budget', 'lots']);
    expect(f.exitCode).toBe(2);
    expect(f.stderr).toContain('--memory-budget must be an integer of 0 or more');
  });
});
