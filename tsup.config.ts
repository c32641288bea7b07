import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

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

export default defineConfig({
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
  clean: true,
  target: 'es2022',
  // Dependencies and peers are never bundled (subpaths such as rxjs/testing included).
  external: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].map((name) => new RegExp(`^${name}(/|$)`)),
});
