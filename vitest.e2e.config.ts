import { defineConfig } from 'vitest/config';

/** Browser tests (`npm run test:e2e`): headless Chromium through playwright-core; not part of `npm test`. */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // A page shows what another process did (the watch applies lines, the server sends an event,
    // the page fetches and renders): vitest's 1 s default for `expect.poll` is shorter than that
    // path takes on a loaded 2-core machine (the live inspector test once saw 26 of 32 events at
    // its deadline). These polls wait for a state, they do not time anything.
    expect: { poll: { timeout: 15_000, interval: 50 } },
  },
});
