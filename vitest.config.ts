import { defineConfig } from 'vitest/config';
import { WORKERS } from './test/helpers/worker-databases.js';

/**
 * Files that share something server-wide run one at a time, after the rest, on the base databases:
 * PostgreSQL replication slots (creating one waits for every open transaction of the cluster) and
 * publications, the binlog server and its global settings, MariaDB's server-wide list of open
 * transactions that tails wait on (races, late rows, idle transactions beside a copy).
 */
const SERIAL = [
  'test/integration/cdc*.test.ts',
  'test/integration/binlog*.test.ts',
  'test/integration/reconnect.test.ts',
  'test/integration/dry-run-first-run.test.ts',
  'test/integration/tail-race*.test.ts',
  'test/integration/tail-last-version.test.ts',
  'test/integration/transaction-listing.test.ts',
  'test/integration/copy-beside-open-transaction.test.ts',
];

const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // The AWS SDK's notice about future Node versions is noise in test output.
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
};

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          ...shared,
          name: 'parallel',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          // The reliability suite is minutes long and has its own command (npm run test:faults).
          exclude: ['test/faults/**', 'node_modules/**', ...SERIAL],
          // Creates test_w1..test_wN (N = BRIDGE_TEST_WORKERS, default 3) on both servers, empty;
          // each worker's files then use their own.
          globalSetup: ['test/helpers/worker-global-setup.ts'],
          setupFiles: ['test/helpers/worker-setup.ts'],
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'serial',
          include: SERIAL,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
