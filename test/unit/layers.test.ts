import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/bridge.js';

/**
 * Issue 30, 2: the import direction the code keeps (src/connectors/sql/README.md). Static imports
 * of values (type-only imports vanish when compiled, so they are left out of the cycle check; the
 * room rules count them too) between the source files.
 */
const SRC = path.join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) ? [p] : [];
  });
}

interface Edge {
  to: string;
  typeOnly: boolean;
}

const IMPORT = /^(import|export)\s+(type\s+)?([^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
const graph = new Map<string, Edge[]>();
for (const f of files(SRC)) {
  const edges: Edge[] = [];
  for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
    const target = path.resolve(path.dirname(f), m[4]!).replace(/\.js$/, '');
    const to = [`${target}.ts`, `${target}.tsx`].find((p) => graph.has(p) || files(path.dirname(p)).includes(p));
    // `import { type A, type B }` is type-only as well.
    const typeOnly = m[2] !== undefined || /^\{\s*(type\s+\w+\s*(,\s*type\s+\w+\s*)*,?)\}\s*from\s*$/.test((m[3] ?? '').trim() + ' from ');
    if (to) edges.push({ to, typeOnly });
  }
  graph.set(f, edges);
}
const rel = (p: string): string => path.relative(SRC, p);

it('reads the import graph (a graph read wrong would pass every rule below)', () => {
  const edges = [...graph.values()].flat();
  expect(graph.size).toBeGreaterThan(200);
  expect(edges.filter((e) => !e.typeOnly).length).toBeGreaterThan(500);
  expect(edges.some((e) => e.typeOnly)).toBe(true);
  expect(graph.get(path.join(SRC, 'connectors/sql/read/read-cursor.ts'))!.map((e) => rel(e.to))).toContain('connectors/sql/position/cursor-frontier.ts');
});

it('no module imports itself round a cycle (value imports)', () => {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, stack: string[]): void => {
    state.set(f, 'open');
    for (const e of graph.get(f) ?? []) {
      if (e.typeOnly) continue;
      if (state.get(e.to) === 'open') cycles.push([...stack.slice(stack.indexOf(e.to)), e.to].map(rel).join(' → '));
      else if (!state.has(e.to)) visit(e.to, [...stack, e.to]);
    }
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f, [f]);
  expect(cycles).toEqual([]);
});

it('the engine knows no connector, and shared SQL knows no database kind', () => {
  const wrong: string[] = [];
  for (const [f, edges] of graph)
    for (const e of edges) {
      const [from, to] = [rel(f), rel(e.to)];
      if (/^(core|pipeline|stats|ui|config)\//.test(from) && /^(connectors|cli)\//.test(to)) wrong.push(`${from} → ${to}`);
      if (from.startsWith('connectors/sql/') && /^connectors\/(postgres|mysql|sqlite|sqlserver)\//.test(to)) wrong.push(`${from} → ${to}`);
    }
  expect(wrong).toEqual([]);
});

it('the rooms of connectors/sql import one way: values ← position ← read, write; capture on its own', () => {
  const may: Record<string, string[]> = { values: [], position: ['values'], read: ['position', 'values'], write: ['position', 'values'], capture: [] };
  const wrong: string[] = [];
  for (const [f, edges] of graph) {
    const room = /^connectors\/sql\/(\w+)\//.exec(rel(f))?.[1];
    if (!room || !may[room]) continue;
    for (const e of edges) {
      const to = /^connectors\/sql\/(\w+)\//.exec(rel(e.to))?.[1];
      if (to && to !== room && may[to] && !may[room]!.includes(to) && !e.typeOnly) wrong.push(`${rel(f)} → ${rel(e.to)}`);
    }
  }
  expect(wrong).toEqual([]);
});
