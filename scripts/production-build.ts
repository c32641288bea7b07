// The production build of rxslice (dist/production/, the "production" export condition): the
// source with src/internal/dev.ts read as `export const DEV = false`, so that every
// `DEV ? full : codedMessage(...)` folds to its short coded message. tsup.config.ts builds it with
// this plugin, and test/size/bundle.ts measures an app's production build with it.
import type { Plugin } from 'esbuild';
import { readFile } from 'node:fs/promises';

/** How every module of src/ imports the flag (one spelling: src/internal/dev.ts is one folder down). */
const IMPORT_DEV = "import { DEV } from '../internal/dev';";

/**
 * esbuild plugin: src/internal/dev.ts loads as `export const DEV = false`, and in a module that
 * imports it every `DEV` is the literal `false` (the import removed). A literal is folded when
 * the module is parsed, before esbuild decides what is live, so that a function or module used
 * only by the development branch (`DEV ? closestType(...) : undefined`) is dropped from the
 * bundle; an imported constant (or a local one) is folded only after that decision, which keeps such code.
 */
export const productionPlugin: Plugin = {
  name: 'rxslice-production',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]internal[\\/]dev\.ts$/ }, () => ({ contents: 'export const DEV = false;\n', loader: 'ts' }));
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(IMPORT_DEV)) return undefined;
      return { contents: source.replace(IMPORT_DEV, '').replace(/\bDEV\b/g, 'false'), loader: 'ts' };
    });
  },
};
