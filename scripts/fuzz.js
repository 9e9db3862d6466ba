#!/usr/bin/env node
// npm run test:fuzz: the round-trip suite with more generated values per column and several seeds
// (random unless BRIDGE_ROUNDTRIP_SEED is set). A failing seed is printed so it can be replayed:
//   BRIDGE_ROUNDTRIP_SEED=<seed> BRIDGE_ROUNDTRIP_VALUES=60 npx vitest run test/roundtrip
import { spawnSync } from 'node:child_process';

const runs = Number(process.env.BRIDGE_FUZZ_RUNS ?? 5);
const values = process.env.BRIDGE_ROUNDTRIP_VALUES ?? '60';
let failed = 0;
for (let i = 0; i < runs; i++) {
  const seed = process.env.BRIDGE_ROUNDTRIP_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
  console.error(`fuzz: seed ${seed}, ${values} values per column`);
  const r = spawnSync('npx', ['vitest', 'run', 'test/roundtrip'], { stdio: 'inherit', env: { ...process.env, BRIDGE_ROUNDTRIP_SEED: seed, BRIDGE_ROUNDTRIP_VALUES: values } });
  if (r.status !== 0) {
    failed++;
    console.error(`fuzz: seed ${seed} FAILED — replay with BRIDGE_ROUNDTRIP_SEED=${seed} BRIDGE_ROUNDTRIP_VALUES=${values} npx vitest run test/roundtrip`);
  }
  if (process.env.BRIDGE_ROUNDTRIP_SEED) break;
}
process.exit(failed ? 1 : 0);
