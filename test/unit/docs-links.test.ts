import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/bridge.js';

/**
 * The anchor GitHub gives a heading: its text without link targets, lowercased, every character that
 * is not a letter, a digit, `_`, `-` or a space dropped (backticks, `.`, `/`, `:`, `→`, `×`, `§`…), then
 * each space turned into `-`.
 */
function slug(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of a markdown file outside fenced code blocks (``` or ~~~), with their line numbers. */
function prose(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = undefined;
      return;
    }
    if (!fence) out.push({ line, n: i + 1 });
  });
  return out;
}

/** Every anchor a file's headings give, repeated headings numbered `-1`, `-2`… as GitHub does. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of prose(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base);
    seen.set(base, n === undefined ? 0 : n + 1);
    out.add(n === undefined ? base : `${base}-${n + 1}`);
  }
  return out;
}

/** The relative link targets of a markdown file: inline links and images, and reference definitions; not inside code. */
function relativeLinks(text: string): { target: string; n: number }[] {
  const out: { target: string; n: number }[] = [];
  for (const { line, n } of prose(text)) {
    const bare = line.replace(/(`+)[\s\S]*?\1/g, '');
    const targets = [...bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(bare);
    if (def) targets.push(def[1]!);
    for (const target of targets) if (!/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(target)) out.push({ target, n });
  }
  return out;
}

const DOCS = readdirSync(path.join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const FILES = ['README.md', 'CONTRIBUTING.md', ...DOCS];

describe('links between the docs', () => {
  it('slugs as GitHub makes them', () => {
    expect(slug('Scale-out: `--partition k/N`')).toBe('scale-out---partition-kn');
    expect(slug('Table → table copies: rows, not messages')).toBe('table--table-copies-rows-not-messages');
    expect(slug('How the database publisher writes (contract §4.1, decisions §5)')).toBe('how-the-database-publisher-writes-contract-41-decisions-5');
    expect(slug('The HTTP listener (`bridge serve`)')).toBe('the-http-listener-bridge-serve');
    expect(slug('source × sink, a_b')).toBe('source--sink-a_b');
    expect(slug('--dry-run')).toBe('--dry-run');
    expect([...anchors('# A\n\n## A\n\n```\n# not a heading\n```\n\n### A ###\n')]).toEqual(['a', 'a-1', 'a-2']);
  });

  it('every relative link of the README, CONTRIBUTING.md and docs/*.md names a file that exists, and a heading it has', () => {
    expect(DOCS.length).toBeGreaterThan(5);
    const broken: string[] = [];
    let checked = 0;
    for (const file of FILES) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const { target, n } of relativeLinks(text)) {
        checked++;
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart ? path.join(path.dirname(path.join(ROOT, file)), decodeURIComponent(pathPart)) : path.join(ROOT, file);
        if (!existsSync(resolved)) {
          broken.push(`${file}:${n}: ${target}: no such file`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
          broken.push(`${file}:${n}: ${target}: an anchor into a file that is not markdown`);
          continue;
        }
        if (!anchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${file}:${n}: ${target}: no heading #${anchor}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('the README is a front door: at most 300 lines', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(300);
  });
});
