#!/usr/bin/env node
// React (under the Ink view) runs its development build unless told otherwise: several times slower.
process.env.NODE_ENV ??= 'production';
const { main } = await import('../dist/cli/main.js');

await main(process.argv);
