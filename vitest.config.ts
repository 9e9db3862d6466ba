import { defineConfig } from 'vitest/config';
import { twoPhases } from './test/helpers/vitest-projects.js';

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: twoPhases({
      include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
      // The reliability suite is minutes long and has its own command (npm run test:faults).
      exclude: ['test/faults/**', 'node_modules/**'],
      // Files that share something server-wide, run alone after the rest: PostgreSQL replication
      // slots (creating one waits for every open transaction of the cluster) and publications, the
      // binlog server and its global settings, MariaDB's server-wide list of open transactions that
      // tails wait on.
      serial: [
        'test/integration/cdc*.test.ts',
        'test/integration/binlog*.test.ts',
        'test/integration/reconnect.test.ts',
        'test/integration/dry-run-first-run.test.ts',
        'test/integration/transaction-listing.test.ts',
      ],
      // Their MariaDB cases run in the serial phase, the rest beside other files (test/helpers/phase.ts).
      both: ['test/integration/tail-race*.test.ts', 'test/integration/tail-last-version.test.ts', 'test/integration/copy-beside-open-transaction.test.ts'],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    }),
  },
});
