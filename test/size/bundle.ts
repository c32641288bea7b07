import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { productionPlugin } from '../../scripts/production-build';

/** What a browser bundle of an app costs in rxslice code, and which rxslice modules it holds. */
export interface BundleCost {
  /** Minified bytes of the whole bundle (rxjs, zod and immer left out: they are the peers). */
  readonly min: number;
  /** The same, gzipped (zlib's default level, as `gzip` and most bundle reports use). */
  readonly gzip: number;
  /** The src/ modules that put code into the bundle (paths relative to the repository). */
  readonly modules: ReadonlySet<string>;
  /**
   * Minified bytes each module of the initial load puts into it (esbuild's `bytesInOutput`,
   * before gzip), the fixture's own code included: what a cut would save, module by module.
   */
  readonly bytes: ReadonlyMap<string, number>;
  /**
   * What the app loads only when it calls for it: the chunks of dynamic `import()`s (the snapshot
   * catalogue's query code, loaded by the first `findSnapshots` or `snapshotLineage`). Not in
   * `min`, `gzip` nor `modules`; a module in both (also imported statically) counts in `modules`.
   */
  readonly lazy: { readonly min: number; readonly gzip: number; readonly modules: ReadonlySet<string> };
}

/**
 * Bundles `entry` (a file, or source text importing from src/) for the browser as an app's
 * production build does: esbuild `--bundle --minify --format=esm --platform=browser --splitting`,
 * `process.env.NODE_ENV` = "production", every package external (rxjs, zod, immer and the peers),
 * so what remains is rxslice's own code and the app's. Code splitting as Vite (Rollup) and Angular
 * (esbuild) builds do: what a dynamic `import()` loads is a chunk of its own, counted in `lazy`;
 * `min` and `gzip` are the entry chunk and the chunks it imports statically (concatenated).
 */
export async function bundleCost(entry: { readonly file: string } | { readonly source: string }): Promise<BundleCost> {
  const result = await build({
    ...('file' in entry ? { entryPoints: [entry.file] } : { stdin: { contents: entry.source, resolveDir: process.cwd(), loader: 'ts' as const, sourcefile: 'entry.ts' } }),
    bundle: true,
    splitting: true,
    outdir: 'size-out', // not written

    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    // Bare specifiers are packages (relative and absolute paths are src/).
    // The package's production build (the "production" export condition, which Vite and webpack
    // apply in production mode): src/internal/dev.ts as `DEV = false`, the short coded messages.
    plugins: [productionPlugin, { name: 'packages-external', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true })) }],
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const entryChunk = Object.keys(outputs).find((path) => outputs[path]!.entryPoint !== undefined)!;
  // The initial load: the entry chunk and, transitively, the chunks it imports statically.
  const initial = new Set([entryChunk]);
  for (const path of initial) for (const imported of outputs[path]!.imports) if (imported.kind === 'import-statement' && !imported.external) initial.add(imported.path);
  const part = (paths: readonly string[]) => {
    const code = Buffer.concat(paths.map((path) => result.outputFiles.find((f) => f.path.endsWith(`/${path}`))!.contents));
    const modules = new Set(paths.flatMap((path) => Object.entries(outputs[path]!.inputs).filter(([src, input]) => input.bytesInOutput > 0 && src.startsWith('src/')).map(([src]) => src)));
    return { min: code.length, gzip: code.length === 0 ? 0 : gzipSync(code).length, modules };
  };
  const loaded = part([...initial]);
  const lazy = part(Object.keys(outputs).filter((path) => !initial.has(path) && !path.endsWith('.map')));
  const bytes = new Map<string, number>();
  for (const path of initial) for (const [src, input] of Object.entries(outputs[path]!.inputs)) if (input.bytesInOutput > 0) bytes.set(src, (bytes.get(src) ?? 0) + input.bytesInOutput);
  return { ...loaded, bytes, lazy: { ...lazy, modules: new Set([...lazy.modules].filter((m) => !loaded.modules.has(m))) } };
}

/** `bytes` as kilobytes with one decimal (1 KB = 1000 bytes, as bundlers print them). */
export const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;

/**
 * The package's entries as an app imports them (`rxslice`, `rxslice/testing`, ...), each with the
 * source that bundles everything it exports (`export * from` its src/ module), in package.json
 * `exports` order.
 */
export function packageEntries(): { readonly name: string; readonly source: string }[] {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, { import: { default: string } } | string> };
  return Object.entries(pkg.exports).flatMap(([subpath, conditions]) => {
    const file = typeof conditions === 'object' ? /^\.\/dist\/(.+)\.js$/.exec(conditions.import.default)?.[1] : undefined;
    if (file === undefined) return [];
    const name = subpath === '.' ? 'rxslice' : `rxslice/${subpath.slice(2)}`;
    return [{ name, source: `export * from ${JSON.stringify(resolve(`src/${file}.ts`))};` }];
  });
}
