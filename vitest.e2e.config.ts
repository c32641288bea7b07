import { defineConfig } from 'vitest/config';

/** Browser tests (`npm run test:e2e`): headless Chromium through playwright-core; not part of `npm test`. */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
