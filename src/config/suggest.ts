/** Optimal-string-alignment distance, capped: we only care whether it is 0, 1 or more. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 1) return 2;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

const normalise = (s: string): string => s.toLowerCase().replace(/-/g, '_');

/** The field name one typo away from `key` (or equal up to case and dashes), if any. */
export function suggest(key: string, names: readonly string[]): string | undefined {
  const k = normalise(key);
  for (const n of names) if (normalise(n) === k) return n;
  for (const n of names) if (distance(k, n) <= 1) return n;
  return undefined;
}
