// Prototype of candidate 4 (issue 34): esbuild mangleProps on internal field names, store quick start.
// Prints min and gzip bytes without and with mangling the names listed (internal fields of the
// core classes, chosen from the bundle's most costly property names; not a checked convention).
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { productionPlugin } from '../../scripts/production-build';

const names = process.argv.slice(2);
async function cost(mangle: boolean) {
  const r = await build({
    entryPoints: ['test/size/fixtures/store-quick-start.ts'], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false,
    define: { 'process.env.NODE_ENV': '"production"' },
    ...(mangle ? { mangleProps: new RegExp(`^(${names.join('|')})$`) } : {}),
    plugins: [productionPlugin, { name: 'x', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (a) => ({ path: a.path, external: true })) }], logLevel: 'silent',
  });
  const code = r.outputFiles[0]!.contents;
  return [code.length, gzipSync(code).length];
}
console.log('plain', ...(await cost(false)));
console.log(`mangled (${names.length} names)`, ...(await cost(true)));
