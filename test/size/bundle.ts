import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';

/** What a browser bundle of an app costs in rxslice code, and which rxslice modules it holds. */
export interface BundleCost {
  /** Minified bytes of the whole bundle (rxjs, zod and immer left out: they are the peers). */
  readonly min: number;
  /** The same, gzipped (zlib's default level, as `gzip` and most bundle reports use). */
  readonly gzip: number;
  /** The src/ modules that put code into the bundle (paths relative to the repository). */
  readonly modules: ReadonlySet<string>;
}

/**
 * Bundles `entry` (a file, or source text importing from src/) for the browser as an app's
 * production build does: esbuild `--bundle --minify --format=esm --platform=browser`,
 * `process.env.NODE_ENV` = "production", every package external (rxjs, zod, immer and the peers),
 * so what remains is rxslice's own code and the app's.
 */
export async function bundleCost(entry: { readonly file: string } | { readonly source: string }): Promise<BundleCost> {
  const result = await build({
    ...('file' in entry ? { entryPoints: [entry.file] } : { stdin: { contents: entry.source, resolveDir: process.cwd(), loader: 'ts' as const } }),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    // Bare specifiers are packages (relative and absolute paths are src/).
    plugins: [{ name: 'packages-external', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true })) }],
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const inputs = Object.values(result.metafile.outputs)[0]!.inputs;
  const modules = new Set(Object.entries(inputs).filter(([path, input]) => input.bytesInOutput > 0 && path.startsWith('src/')).map(([path]) => path));
  return { min: code.length, gzip: gzipSync(code).length, modules };
}

/** `bytes` as kilobytes with one decimal (1 KB = 1000 bytes, as bundlers print them). */
export const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;
