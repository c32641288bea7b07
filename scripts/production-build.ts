// The production build of rxslice (dist/production/, the "production" export condition): the
// source with src/internal/dev.ts read as `export const DEV = false`, so that every
// `DEV ? full : codedMessage(...)` folds to its short coded message. tsup.config.ts builds it with
// this plugin, and test/size/bundle.ts measures an app's production build with it.
import type { Plugin } from 'esbuild';

/** esbuild plugin: src/internal/dev.ts loads as `export const DEV = false`. */
export const productionPlugin: Plugin = {
  name: 'rxslice-production',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]internal[\\/]dev\.ts$/ }, () => ({ contents: 'export const DEV = false;\n', loader: 'ts' }));
  },
};
