import { describe, expect, it } from 'vitest';
import { JsonReporter, PlainReporter } from '../../src/ui/reporter.js';

/**
 * The row estimate is asked only when something shows it: SQLite keeps no statistics, so asking
 * is a COUNT(*) over the whole table before the first row moves (14 ms per 100k rows).
 */
describe('which reporters show the source row estimate', () => {
  it('plain lines with --progress none or -q show none; progress lines and JSON do', () => {
    expect(new PlainReporter({ quiet: false, progress: false, intervalMs: 1000 }).showsEstimate).toBe(false);
    expect(new PlainReporter({ quiet: true, progress: true, intervalMs: 1000 }).showsEstimate).toBe(false);
    expect(new PlainReporter({ quiet: false, progress: true, intervalMs: 1000 }).showsEstimate).toBe(true);
    expect(new JsonReporter({ quiet: false, intervalMs: 1000 }).showsEstimate).not.toBe(false);
  });
});
