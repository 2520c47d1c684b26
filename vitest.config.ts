import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A worker loads src/ and the SDKs once for all its files instead of once per file (see
    // docs/performance.md, "The test suite"); test/kit/setup.ts keeps per-file cleanup working.
    isolate: false,
    // Most tests wait on spawned processes, not the CPU: one worker more than the cores, at least
    // three (vitest's default on two cores is one; see docs/performance.md).
    maxWorkers: Math.max(3, os.availableParallelism() + 1),
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/kit/setup.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', NO_COLOR: '1' },
  },
});
