import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/bridge.js';

export interface FaultResult {
  scenario: string;
  runs: number;
  lost: number;
  duplicates: number;
  outcome: string;
}

export const RESULTS = path.join(ROOT, 'bench/out/faults.ndjson');

/** Each scenario appends its figures; scripts/faults-report.js turns them into docs/reliability.md. */
export function record(r: FaultResult): void {
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  appendFileSync(RESULTS, JSON.stringify(r) + '\n');
  console.log(`fault ${r.scenario}: runs ${r.runs}, lost ${r.lost}, duplicates ${r.duplicates}, ${r.outcome}`);
}
