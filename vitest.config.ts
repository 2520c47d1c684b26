import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most tests wait on spawned processes, not the CPU: two workers even on two cores (vitest's
    // default there is one).
    maxWorkers: Math.max(2, os.availableParallelism()),
    globalSetup: ['test/global-setup.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', NO_COLOR: '1' },
  },
});
