import { WORKERS } from './worker-databases.js';

/**
 * A suite in two phases: first every file not in `serial`, WORKERS at a time, each worker on
 * databases of its own (worker-databases.ts); then the `serial` files one at a time on the base
 * databases, alone with the servers. A file in `both` runs in each phase, and picks there the
 * cases of that phase (phase.ts).
 */
export function twoPhases(o: { include: string[]; exclude: string[]; serial: string[]; both?: string[]; testTimeout: number; hookTimeout: number }) {
  const shared = {
    testTimeout: o.testTimeout,
    hookTimeout: o.hookTimeout,
    pool: 'forks' as const,
    // The AWS SDK's notice about future Node versions is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  };
  return [
    {
      test: {
        ...shared,
        name: 'parallel',
        include: o.include,
        exclude: [...o.exclude, ...o.serial],
        // Creates test_w1..test_wN (N = BRIDGE_TEST_WORKERS, default 3) on both servers, empty;
        // each worker's files then use their own.
        globalSetup: ['test/helpers/worker-global-setup.ts'],
        setupFiles: ['test/helpers/worker-setup.ts'],
        maxWorkers: WORKERS,
        sequence: { groupOrder: 0 },
        provide: { phase: 'parallel' as const },
      },
    },
    {
      test: { ...shared, name: 'serial', include: [...o.serial, ...(o.both ?? [])], exclude: o.exclude, fileParallelism: false, sequence: { groupOrder: 1 }, provide: { phase: 'serial' as const } },
    },
  ];
}
