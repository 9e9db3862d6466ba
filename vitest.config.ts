import { defineConfig } from 'vitest/config';

// Database tests share servers and tables: files run one after another (2 cores here anyway).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The reliability suite is minutes long and has its own command (npm run test:faults).
    exclude: ['test/faults/**', 'node_modules/**'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The AWS SDK's notice about future Node versions is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    reporters: ['default'],
  },
});
