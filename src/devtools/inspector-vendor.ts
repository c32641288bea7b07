import path from 'node:path';
import type { InstalledBrowserPackages } from './inspector-page';

/** A file the inspector page may load from an optional package, as `/vendor/<name>`. */
interface VendorFile {
  /** The module specifier of the file, resolved from rxslice's own installation. */
  readonly module: string;
  readonly type: string;
}

const JS = 'text/javascript; charset=utf-8';

/** The browser libraries the page loads, served from this installation's node_modules (no network). */
const VENDOR: Readonly<Record<string, VendorFile>> = {
  '/vendor/mermaid.min.js': { module: 'mermaid/dist/mermaid.min.js', type: JS },
  '/vendor/uPlot.iife.min.js': { module: 'uplot/dist/uPlot.iife.min.js', type: JS },
  '/vendor/uPlot.min.css': { module: 'uplot/dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
};

/**
 * The ELK layout is an ES module that imports its chunks by relative paths, so its `dist/`
 * folder is served under this prefix: only `.mjs` files, by names without `..`.
 */
const ELK_PREFIX = '/vendor/layout-elk/';
const ELK_ENTRY = '@mermaid-js/layout-elk/dist/mermaid-layout-elk.esm.min.mjs';

/** `require.resolve`, or anything that throws as it does for a module that is not installed. */
export type ResolveModule = (specifier: string) => string;

const installed = (resolve: ResolveModule, specifier: string): boolean => {
  try {
    resolve(specifier);
    return true;
  } catch {
    return false;
  }
};

/** @internal Which optional browser packages are installed, looked up once when the server starts. */
export function installedBrowserPackages(resolve: ResolveModule): InstalledBrowserPackages {
  return {
    uplot: installed(resolve, 'uplot/dist/uPlot.iife.min.js') && installed(resolve, 'uplot/dist/uPlot.min.css'),
    mermaid: installed(resolve, 'mermaid/dist/mermaid.min.js'),
    layoutElk: installed(resolve, ELK_ENTRY),
  };
}

/**
 * @internal The file and content type a `/vendor/...` path names, `'missing'` when its package is
 * not installed, or undefined when the path is not one the page loads.
 */
export function vendorFile(resolve: ResolveModule, pathname: string): { readonly file: string; readonly type: string } | 'missing' | undefined {
  const vendor = VENDOR[pathname];
  if (vendor !== undefined) {
    try {
      return { file: resolve(vendor.module), type: vendor.type };
    } catch {
      return 'missing';
    }
  }
  if (!pathname.startsWith(ELK_PREFIX)) return undefined;
  const rest = pathname.slice(ELK_PREFIX.length);
  if (!/^[\w.-]+(?:\/[\w.-]+)*\.mjs$/.test(rest) || rest.split('/').some((part) => part === '..' || part === '.')) return undefined;
  let entry: string;
  try {
    entry = resolve(ELK_ENTRY);
  } catch {
    return 'missing';
  }
  return { file: path.join(path.dirname(entry), rest), type: JS };
}
