/// <reference lib="dom" />
/**
 * `node:perf_hooks` in the browser bundle: the transcript replay times its dispatch loop with
 * `performance.now()`, which browsers have as a global. `build.ts` maps the import here.
 */
export const performance: Performance = globalThis.performance;
