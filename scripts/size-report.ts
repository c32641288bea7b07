// Prints the size table of docs/SIZE.md: every package entry bundled whole (`export *`), and the
// test/size fixtures (the quick start alone and with one feature), for the browser in production
// with every package external. Run: npx tsx scripts/size-report.ts
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { bundleCost, kb, type BundleCost } from '../test/size/bundle';

/** The lazy chunks (loaded by a dynamic `import()` when first needed), or a dash. */
const lazy = (cost: BundleCost): string => (cost.lazy.min === 0 ? '–' : kb(cost.lazy.gzip));

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, { import: { default: string } } | string> };
console.log('| Entry (everything it exports) | min | min+gzip | lazy, min+gzip |\n|---|---:|---:|---:|');
for (const [subpath, conditions] of Object.entries(pkg.exports)) {
  if (typeof conditions !== 'object') continue;
  const name = /^\.\/dist\/(.+)\.js$/.exec(conditions.import.default)?.[1];
  if (name === undefined) continue;
  const cost = await bundleCost({ source: `export * from ${JSON.stringify(resolve(`src/${name}.ts`))};` });
  console.log(`| \`${subpath === '.' ? 'rxslice' : `rxslice/${subpath.slice(2)}`}\` | ${kb(cost.min)} | ${kb(cost.gzip)} | ${lazy(cost)} |`);
}
console.log('\n| Fixture (test/size/fixtures) | min | min+gzip | lazy, min+gzip |\n|---|---:|---:|---:|');
for (const fixture of ['quick-start', 'with-channels', 'with-windows', 'with-snapshots', 'with-effects', 'with-sagas', 'with-machines']) {
  const cost = await bundleCost({ file: `test/size/fixtures/${fixture}.ts` });
  console.log(`| ${fixture} | ${kb(cost.min)} | ${kb(cost.gzip)} | ${lazy(cost)} |`);
}
