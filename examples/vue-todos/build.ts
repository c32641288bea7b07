/**
 * Bundles the Vue example (`app.ts`) for the browser with esbuild: one minified ES module with
 * Vue's runtime build (production) and the core of rxslice, inlined into one HTML page.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Builds the bundle in memory; resolves with its text. */
export async function buildVueExample(): Promise<string> {
  const result = await build({
    entryPoints: [`${here}app.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    // Vue's esm-bundler build reads these feature flags; production, with the Options API left out.
    define: { 'process.env.NODE_ENV': '"production"', __VUE_OPTIONS_API__: 'false', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
    logLevel: 'silent',
  });
  const out = result.outputFiles[0];
  if (out === undefined) throw new Error('esbuild wrote no bundle');
  return out.text;
}

/** The page: a little CSS, a root for Vue and the bundle inline (`</script` escaped). */
export async function vueExamplePage(): Promise<string> {
  const bundle = (await buildVueExample()).replaceAll('</script', '<\\/script');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rxslice + Vue</title>
<link rel="icon" href="data:,">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d2330; }
  li { cursor: pointer; } li.done { text-decoration: line-through; color: #98a2b3; }
</style>
</head>
<body><div id="root"></div><script type="module">${bundle}</script></body>
</html>
`;
}
