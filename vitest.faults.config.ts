import { defineConfig } from 'vitest/config';

// npm run test:faults: the reliability suite (crashes, outages, overload, fuzzing, secrets, TLS).
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The AWS SDK's notice about future Node versions is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
