import fc from 'fast-check';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endAtLine } from '../../src/connectors/ndjson/torn-tail.js';
import { tempDir } from '../helpers/bridge.js';

/**
 * The last line of a file a sink is about to append to (src/connectors/ndjson/torn-tail.ts), on
 * generated files: lines of every JSON kind, multi-byte text, lines longer than the 64 KB the
 * scan reads back at a time, and a cut anywhere inside a line, as a kill inside a write leaves.
 */
const dir = tempDir('torn-');
let n = 0;
const fresh = (text: Buffer | string): string => {
  const f = path.join(dir, `f${n++}.ndjson`);
  writeFileSync(f, text);
  return f;
};
const sidecars = (f: string): string[] => readdirSync(dir).filter((x) => x.startsWith(`${path.basename(f)}.unfinished-`));

const value = fc.oneof(
  fc.record({ id: fc.integer(), v: fc.string({ unit: 'binary', maxLength: 40 }) }),
  fc.array(fc.oneof(fc.integer(), fc.string({ unit: 'grapheme', maxLength: 8 })), { maxLength: 6 }),
  fc.integer({ min: 10 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  // Longer than one step of the backward scan.
  fc.integer({ min: 65_000, max: 140_000 }).map((len) => ({ big: 'é'.repeat(len / 2) })),
);
const line = value.map((v) => JSON.stringify(v));

describe('endAtLine: a file about to be appended to ends at a line boundary', () => {
  it('a line cut anywhere inside is moved aside byte for byte and the whole lines stay (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 5 }), line, fc.double({ min: 0, max: 1, noNaN: true }), async (whole, last, at) => {
        const lastBytes = Buffer.from(last);
        const cut = Math.max(1, Math.min(lastBytes.length - 1, Math.floor(at * lastBytes.length)));
        fc.pre(lastBytes.length >= 2);
        const head = Buffer.from(whole.map((l) => l + '\n').join(''));
        const fragment = lastBytes.subarray(0, cut);
        const f = fresh(Buffer.concat([head, fragment]));
        const r = await endAtLine(f);
        const starts = last[0] === '{' || last[0] === '[';
        if (starts) {
          // A proper prefix of an object or array never parses: always moved.
          expect(r).toMatchObject({ done: 'moved', bytes: fragment.length });
          expect(readFileSync(f).equals(head)).toBe(true);
          const [side] = sidecars(f);
          expect(readFileSync(path.join(dir, side!)).equals(fragment)).toBe(true);
        } else {
          // A torn number or string: moved too (a bare number could be a longer one cut short).
          expect(r.done).toBe('moved');
          expect(readFileSync(f).equals(head)).toBe(true);
        }
      }),
      { seed: 20261124, numRuns: 150 },
    );
  });

  it('whole lines, with or without the last newline of an object or array, are never cut (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 5 }), fc.boolean(), async (whole, ended) => {
        const text = whole.join('\n') + (ended ? '\n' : '');
        const f = fresh(text);
        const r = await endAtLine(f);
        const last = whole[whole.length - 1]!;
        if (ended) expect([r.done, readFileSync(f, 'utf8')]).toEqual(['none', text]);
        else if (last.startsWith('{') || last.startsWith('[')) expect([r.done, readFileSync(f, 'utf8')]).toEqual(['ended', text + '\n']);
        else expect(readFileSync(f, 'utf8') + readFileSync(path.join(dir, sidecars(f)[0]!), 'utf8')).toBe(text);
      }),
      { seed: 20261125, numRuns: 150 },
    );
  });

  it('edges: empty file, one fragment and nothing else, a newline exactly at a 64 KB step, a byte-order mark', async () => {
    const empty = fresh('');
    expect(await endAtLine(empty)).toEqual({ done: 'none' });
    const only = fresh('{"id":1,"v":"ro');
    expect(await endAtLine(only)).toMatchObject({ done: 'moved', bytes: 15 });
    expect(readFileSync(only, 'utf8')).toBe('');
    const step = fresh('x'.repeat(65_535) + '\n' + '{"a":');
    expect(await endAtLine(step)).toMatchObject({ done: 'moved', bytes: 5 });
    expect(readFileSync(step, 'utf8')).toBe('x'.repeat(65_535) + '\n');
    const bom = fresh('\uFEFF{"written":"by hand"}');
    expect(await endAtLine(bom)).toEqual({ done: 'ended' });
    expect(readFileSync(bom, 'utf8')).toBe('\uFEFF{"written":"by hand"}\n');
  });

  it('sinks sharing one file are told once, and the second check does not touch the file', async () => {
    const f = fresh('{"id":1}\n{"id":2,"v":');
    const [a, b] = await Promise.all([endAtLine(f), endAtLine(f)]);
    expect([a.done, b.done]).toEqual(['moved', 'none']);
    writeFileSync(f, '{"id":1}\n{"id":2,"v":');
    expect(await endAtLine(f)).toEqual({ done: 'none' });
    expect(readFileSync(f, 'utf8')).toBe('{"id":1}\n{"id":2,"v":');
  });

  it('a file it cannot read is left as it is', async () => {
    expect(await endAtLine(path.join(dir, 'missing.ndjson'))).toEqual({ done: 'none' });
    expect(existsSync(path.join(dir, 'missing.ndjson'))).toBe(false);
  });
});
