// Prints the size tables of docs/SIZE.md: every package entry bundled whole (`export *`), and the
// test/size fixtures (the quick start alone and with one feature), for the browser in production
// with every package external. Run: npx tsx scripts/size-report.ts
//
// `npx tsx scripts/size-report.ts --modules [fixture]` prints instead what each module puts into
// a fixture's initial load (default: the quick start), minified bytes, largest first, and the
// same summed by folder: what a cut would save, chosen by size rather than guessed.
import { bundleCost, kb, packageEntries, type BundleCost } from '../test/size/bundle';

/** The lazy chunks (loaded by a dynamic `import()` when first needed), or a dash. */
const lazy = (cost: BundleCost): string => (cost.lazy.min === 0 ? '–' : kb(cost.lazy.gzip));

const modulesAt = process.argv.indexOf('--modules');
if (modulesAt >= 0) {
  const fixture = process.argv[modulesAt + 1] ?? 'quick-start';
  const cost = await bundleCost({ file: `test/size/fixtures/${fixture}.ts` });
  console.log(`${fixture}: ${kb(cost.min)} min, ${kb(cost.gzip)} min+gzip (initial load)\n`);
  const rows = [...cost.bytes].sort((a, b) => b[1] - a[1]);
  const folders = new Map<string, number>();
  for (const [module, bytes] of rows) {
    const folder = module.slice(0, module.lastIndexOf('/') + 1);
    folders.set(folder, (folders.get(folder) ?? 0) + bytes);
  }
  console.log('| Folder | min bytes |\n|---|---:|');
  for (const [folder, bytes] of [...folders].sort((a, b) => b[1] - a[1])) console.log(`| \`${folder}\` | ${bytes.toLocaleString('en')} |`);
  console.log('\n| Module | min bytes |\n|---|---:|');
  for (const [module, bytes] of rows) console.log(`| \`${module}\` | ${bytes.toLocaleString('en')} |`);
} else {
  console.log('| Entry (everything it exports) | min | min+gzip | lazy, min+gzip |\n|---|---:|---:|---:|');
  for (const { name, source } of packageEntries()) {
    const cost = await bundleCost({ source });
    console.log(`| \`${name}\` | ${kb(cost.min)} | ${kb(cost.gzip)} | ${lazy(cost)} |`);
  }
  console.log('\n| Fixture (test/size/fixtures) | min | min+gzip | lazy, min+gzip |\n|---|---:|---:|---:|');
  for (const fixture of ['quick-start', 'store-quick-start', 'store-with-snapshots', 'store-with-middleware', 'store-with-durable-storage', 'with-channels', 'with-windows', 'with-snapshots', 'with-effects', 'with-sagas', 'with-machines']) {
    const cost = await bundleCost({ file: `test/size/fixtures/${fixture}.ts` });
    console.log(`| ${fixture} | ${kb(cost.min)} | ${kb(cost.gzip)} | ${lazy(cost)} |`);
  }
}
