import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/bridge.js';
import { typeTables } from '../roundtrip/type-table.js';

it('docs/types.md is what the mappings and verdicts say today', () => {
  const file = path.join(ROOT, 'docs/types.md');
  const want = typeTables();
  if (process.env.BRIDGE_UPDATE_DOCS) writeFileSync(file, want);
  expect(readFileSync(file, 'utf8'), 'docs/types.md is out of date: BRIDGE_UPDATE_DOCS=1 npx vitest run test/unit/type-tables.test.ts').toBe(want);
});
