/**
 * Bundles the live view (`app.ts`) for the browser with esbuild: one minified ES module with React
 * in its production build, the core of rxslice and the transcript domain. `node:perf_hooks` (read
 * by the replay for its timing) maps to the browser's `performance`.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The page's HTML: the bundle, a little CSS, and a root for React. */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rxslice live view</title>
<link rel="icon" href="data:,">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1d2330; }
  header { padding: 8px 16px; background: #1d2330; color: #fff; display: flex; gap: 24px; align-items: baseline; }
  header h1 { font-size: 16px; margin: 0; }
  main { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 12px; padding: 12px; }
  .panel { background: #fff; border: 1px solid #d8dce3; border-radius: 6px; padding: 8px 12px; overflow: hidden; }
  .panel h2 { font-size: 14px; margin: 0 0 8px; }
  #chart { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; padding: 0; }
  .state { border: 1px solid #98a2b3; border-radius: 12px; padding: 2px 10px; }
  .state.active { background: #2563eb; border-color: #2563eb; color: #fff; font-weight: 600; }
  tr.error td.status { color: #b42318; } tr.pending td.status { color: #b54708; } tr.ok td.status { color: #027a48; }
  td { padding: 1px 6px; vertical-align: top; } td.summary { max-width: 230px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; } ol { padding-left: 20px; } li.user b { color: #2563eb; }
</style>
</head>
<body><div id="root"></div><script type="module" src="app.js"></script></body>
</html>
`;

/** Builds the bundle in memory; resolves with its text. */
export async function buildLiveView(): Promise<string> {
  const result = await build({
    entryPoints: [`${here}app.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: { 'node:perf_hooks': `${here}perf-hooks.ts` },
    logLevel: 'silent',
  });
  const out = result.outputFiles[0];
  if (out === undefined) throw new Error('esbuild wrote no bundle');
  return out.text;
}
