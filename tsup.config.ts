import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';
import { productionPlugin } from './scripts/production-build';

/**
 * The entry points are listed in one place: package.json `exports`. Each subpath's
 * `import.default` file `./dist/<name>.js` is built from `src/<name>.ts`, so adding an entry
 * means adding its `exports` block (import/require × types/default) and its `src/<name>.ts`;
 * `npm run check:entries` then checks that it is built, packed, and loads under both formats.
 */
type Conditions = { import: { default: string } };
const pkg = JSON.parse(readFileSync('./package.json', 'utf8')) as {
  exports: Record<string, Conditions | string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const entry = Object.fromEntries(
  Object.entries(pkg.exports)
    .filter((e): e is [string, Conditions] => typeof e[1] === 'object')
    .map(([subpath, conditions]) => {
      const name = /^\.\/dist\/(.+)\.js$/.exec(conditions.import.default)?.[1];
      if (name === undefined) throw new Error(`package.json exports["${subpath}"].import.default must be ./dist/<name>.js`);
      return [name, `src/${name}.ts`];
    }),
);

// The `rxslice` bin (bin/rxslice.mjs runs dist/cli/main.js in an installed package).
entry['cli/main'] = 'src/cli/main.ts';

const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].map((name) => new RegExp(`^${name}(/|$)`));

const development: Options = {
  entry,
  format: ['esm', 'cjs'],
  // One copy of the core per format: code shared by several entries goes into chunks that the
  // entries import (ESM) or require (CommonJS), so rxslice/testing's errors are rxslice's errors.
  // With treeshake on, tsup hands both formats to rollup, which turns the split ESM build into
  // CommonJS chunks (without it tsup converts them with sucrase, which rewrites class fields).
  splitting: true,
  treeshake: true,
  dts: true,
  // No source maps: they would point at src/, which is not shipped.
  sourcemap: false,
  // dist/ is emptied by `npm run build` before both builds start (they run in parallel, and
  // tsup's own clean of dist/ could delete dist/production/ while it is being written).
  clean: false,
  target: 'es2022',
  // Dependencies and peers are never bundled (subpaths such as rxjs/testing included).
  external,
};

/**
 * The production build (the `"production"` condition of each entry's `import`): the same entries
 * as ESM in dist/production/, with src/internal/dev.ts as `DEV = false` so that the long error
 * messages fold to their codes (docs/errors.md). Its types are dist/'s (the same declarations).
 * The bin is not in it (Node applies no "production" condition).
 */
const production: Options = {
  ...development,
  entry: Object.fromEntries(Object.entries(entry).filter(([name]) => name !== 'cli/main')),
  outDir: 'dist/production',
  format: ['esm'],
  dts: false,
  // Folds `DEV ? full : short` (DEV is a constant false here) before rollup's tree shaking.
  minifySyntax: true,
  esbuildPlugins: [productionPlugin],
};

export default defineConfig([development, production]);
