import { defineConfig } from 'vitest/config';
import { twoPhases } from './test/helpers/vitest-projects.js';

// npm run test:faults: the reliability suite (crashes, outages, overload, fuzzing, secrets, TLS).
export default defineConfig({
  test: {
    projects: twoPhases({
      include: ['test/faults/**/*.test.ts'],
      exclude: ['node_modules/**'],
      // Alone with the servers: outages stop them, TLS reconfigures PostgreSQL, change capture
      // makes slots and reads the binlog server.
      serial: ['test/faults/outage.test.ts', 'test/faults/tls-pg.test.ts', 'test/faults/cdc-pgbench.test.ts', 'test/faults/exactly-once-changes.test.ts', 'test/faults/binlog-kill.test.ts'],
      testTimeout: 600_000,
      hookTimeout: 120_000,
    }),
  },
});
