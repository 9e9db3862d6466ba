import { describe, expect, it } from 'vitest';
import { parseKeyRange, parsePartition, splitRange } from '../../src/connectors/sql/read/partition.js';

describe('splitting a table', () => {
  it('key ranges cover every integer once, the ends open', () => {
    expect(splitRange(1n, 10000n, 3)).toEqual(['..3334', '3334..6667', '6667..']);
    expect(splitRange(5n, 5n, 2)).toEqual(['..5', '5..']);
    expect(splitRange(-9223372036854775808n, 9223372036854775807n, 2)).toEqual(['..0', '0..']);
    expect(splitRange(1n, 100n, 1)).toEqual(['..']);
    // Every key between min and max falls in exactly one range.
    const ranges = splitRange(-7n, 93n, 7).map(parseKeyRange);
    for (let k = -10n; k <= 100n; k++) expect({ k, in: ranges.filter((r) => (r.lo === undefined || k >= r.lo) && (r.hi === undefined || k < r.hi)).length }).toEqual({ k, in: 1 });
  });

  it('parses k/N and lo..hi, and refuses what is not', () => {
    expect(parsePartition('3/4')).toEqual({ k: 3, n: 4 });
    for (const bad of ['4/4', '-1/4', '1/0', 'a/b', '1', '']) expect(() => parsePartition(bad)).toThrow(/is not k\/N/);
    expect(parseKeyRange('..')).toEqual({ lo: undefined, hi: undefined });
    expect(parseKeyRange('-5..12')).toEqual({ lo: -5n, hi: 12n });
    for (const bad of ['5..5', '9..1', '1.5..2', 'a..b', '1-2']) expect(() => parseKeyRange(bad)).toThrow(/is not lo\.\.hi/);
  });
});
