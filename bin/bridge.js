#!/usr/bin/env node
// First, before any module loads: URLs on the command line may hold passwords, and `ps` and
// /proc/<pid>/cmdline show the process title (the command line until it is set).
process.title = `bridge ${process.argv[2] ?? ''}`.trim();
// Stop signals are caught from here on, so one that comes while the modules load stops the run
// cleanly (exit 0) instead of killing it. These listeners stay: removing and re-adding one
// drops a signal that arrives in between.
const early = [];
let deliver = (sig) => early.push(sig);
process.on('SIGINT', () => deliver('SIGINT')).on('SIGTERM', () => deliver('SIGTERM'));
// React (under the Ink view) runs its development build unless told otherwise: several times slower.
process.env.NODE_ENV ??= 'production';
// The bundle (scripts/bundle.js) loads faster; a full tsc run after it makes it stale, and tsc's output is then
// taken (tsc -w rewrites only what changed: npm run build after it, see CONTRIBUTING.md).
const bundled = new URL('../dist/bundle/main.js', import.meta.url);
const plain = new URL('../dist/cli/main.js', import.meta.url);
const { statSync } = await import('node:fs');
const fresh = statSync(bundled, { throwIfNoEntry: false })?.mtimeMs >= (statSync(plain, { throwIfNoEntry: false })?.mtimeMs ?? Infinity);
const { main } = await import(fresh ? bundled : plain);

await main(process.argv, (handle) => {
  deliver = handle;
  for (const sig of early.splice(0)) handle(sig);
});
