// dist/bundle/: tsc's dist/cli/main.js and what it imports bundled by esbuild into a few files
// (bin/bridge.js runs it when it is at least as new as dist/cli/main.js). Node 20 resolves, opens
// and compiles each of ~130 modules of a small copy one by one, ~50 ms of a ~330 ms run
// (SQLite -> NDJSON, 100 rows, 15 alternating runs: 0.28 s against 0.33 s median). Packages stay
// imports of node_modules; connectors loaded on demand stay separate chunks (splitting).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const out = new URL('../dist/bundle/', import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: [new URL('../dist/cli/main.js', import.meta.url).pathname],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: out,
  logLevel: 'warning',
});
