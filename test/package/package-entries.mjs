// What the package checks share: the entry list and the dependency roles read from package.json,
// and the run of the entry checks (entry-checks.cjs, under `import` and under `require`) in a
// directory where node_modules/rxslice is the package as a user installed it.
// Used by check-entries.mjs (the packed tarball) and check-git-install.mjs (`npm i git+file://`).
import { copyFileSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The core's dependencies: what `rxslice` itself imports (rxjs and zod are peers, immer a dependency). */
export const CORE_DEPS = ['immer', 'rxjs', 'zod'];
/**
 * The `rxslice` bin's dependencies: installed with the package, never imported by the core entry
 * (the JSONL storage's are among them: the bin replays into durable sessions and recordings).
 */
export const BIN_DEPS = ['chokidar', 'cli-progress', 'commander', 'proper-lockfile', 'write-file-atomic'];
/** Dev dependencies the entry checks use beside the optional peers (react-dom renders rxslice/react's hooks). */
export const TEST_RENDERERS = ['react-dom'];

/** @param {string} root - a directory holding package.json */
export const readPackage = (root) => JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The package's subpath entries ('.', './testing', ...): the keys of `exports` but './package.json'. */
export const packageEntries = (pkg) => Object.keys(pkg.exports).filter((k) => k !== './package.json');

/** The optional peer dependencies (peerDependenciesMeta[name].optional). */
export const optionalPeers = (pkg) =>
  Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta.optional)
    .map(([name]) => name);

/**
 * Runs entry-checks.cjs under `import` (entries-esm.mjs) and under `require` (entries-cjs.cjs) in
 * `dir`, whose node_modules holds the installed rxslice (and, when `withOptionalPeers`, the
 * optional peers and TEST_RENDERERS). Copies the three scripts into `dir` first.
 * @returns {string[]} failures, one per failed format (empty when both passed)
 */
export const runEntryChecks = (dir, { withOptionalPeers, entries, optionalPeers: peers }) => {
  for (const script of ['entry-checks.cjs', 'entries-esm.mjs', 'entries-cjs.cjs']) copyFileSync(join(here, script), join(dir, script));
  const options = JSON.stringify({ withOptionalPeers, entries, optionalPeers: peers });
  const failures = [];
  // The ESM entries once more under the "production" condition (dist/production/, the coded messages).
  for (const [script, conditions] of [['entries-esm.mjs', []], ['entries-cjs.cjs', []], ['entries-esm.mjs', ['--conditions=production']]]) {
    const r = spawnSync(process.execPath, [...conditions, script, options], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) failures.push(`${conditions.join(' ')} ${script} (${withOptionalPeers ? 'with' : 'without'} the optional peers):\n${(r.stderr || r.stdout).trimEnd()}`);
  }
  return failures;
};
