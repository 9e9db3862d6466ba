#!/usr/bin/env node
// Turns the faults suite's results (bench/out/faults.ndjson) into the table of docs/reliability.md.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rows = readFileSync(path.join(root, 'bench/out/faults.ndjson'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const seen = new Map();
for (const r of rows) seen.set(r.scenario, r); // the last run of a scenario wins
const table = ['| scenario | runs | rows lost | duplicates | outcome |', '|---|---|---|---|---|', ...[...seen.values()].map((r) => `| ${r.scenario} | ${r.runs} | ${r.lost} | ${r.duplicates} | ${r.outcome} |`)].join('\n');
const file = path.join(root, 'docs/reliability.md');
const doc = readFileSync(file, 'utf8');
const start = '<!-- results:start -->';
const end = '<!-- results:end -->';
writeFileSync(file, doc.slice(0, doc.indexOf(start) + start.length) + '\n' + table + '\n' + doc.slice(doc.indexOf(end)));
console.log(table);
