// `npm run prepare`, which npm runs by itself after `npm ci` / `npm install` in a checkout, before
// `npm pack` and `npm publish`, and when a project installs rxslice from git
// (`npm i git+https://...`): builds dist/ with tsup (`npm run build`) so that every one of those
// routes yields a package whose `exports` and bin resolve.
//
// Installing from git, npm clones the repository, runs `npm install` in the clone (the dev
// dependencies included, this script too) and then runs this script a second time before packing
// the clone. The second run, and any other run over unchanged inputs, is skipped: the build
// records a hash of its inputs (src/, package.json, tsup.config.ts, tsconfig.json, scripts/production-build.ts) and of the
// dist/ it wrote in node_modules/.cache/rxslice/prepare.json, and a later run whose inputs and
// dist/ still match does nothing. A tsup build takes about 70 s of CPU (the type declarations
// take most of it).
//
// In an installed package (no src/: a tarball ships dist/ already built) it does nothing.
// It writes only to stderr (tsup's output included): npm runs it inside `npm pack --json`, whose
// stdout must stay JSON (check:entries and attw read it).
// Usage: node scripts/prepare.mjs [--force]   (--force builds even when dist/ is up to date)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const INPUT_FILES = ['package.json', 'tsup.config.ts', 'tsconfig.json', 'scripts/production-build.ts'];
const stampFile = join(root, 'node_modules', '.cache', 'rxslice', 'prepare.json');

if (!existsSync(join(root, 'src'))) process.exit(0);

/** Files under `dir` (relative to root), sorted, so the hashes do not depend on readdir's order. */
const filesUnder = (dir) =>
  existsSync(join(root, dir))
    ? readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => relative(root, join(d.parentPath ?? d.path, d.name)))
        .sort()
    : [];

/** Hash of the build's inputs: their paths and contents. */
const inputsHash = () => {
  const hash = createHash('sha256');
  for (const file of [...INPUT_FILES, ...filesUnder('src')]) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  return hash.digest('hex');
};

/** Hash of what dist/ holds: paths, sizes and modification times (a later build or edit changes them). */
const distHash = () => {
  const hash = createHash('sha256');
  for (const file of filesUnder('dist')) {
    const s = statSync(join(root, file));
    hash.update(`${file}\0${s.size}\0${s.mtimeMs}\0`);
  }
  return hash.digest('hex');
};

const readStamp = () => {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
};

const inputs = inputsHash();
const stamp = readStamp();
if (!process.argv.includes('--force') && stamp?.root === root && stamp.inputs === inputs && stamp.dist === distHash() && filesUnder('dist').length > 0) {
  console.error('rxslice prepare: dist/ is up to date with src/ (built earlier from the same sources); skipping the build');
  process.exit(0);
}

const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');
if (!existsSync(tsup)) {
  console.error('rxslice prepare: cannot build dist/: tsup is not installed. Install the dev dependencies first (`npm ci`, without --omit=dev).');
  process.exit(1);
}
const started = Date.now();
// tsup.config.ts builds dist/ and dist/production/ in parallel and cleans neither (see there).
rmSync(join(root, 'dist'), { recursive: true, force: true });
const build = spawnSync(process.execPath, [tsup], { cwd: root, stdio: ['ignore', 2, 2] });
if (build.status !== 0) {
  console.error(`rxslice prepare: the build (tsup) failed with exit ${build.status ?? build.signal}`);
  process.exit(1);
}
mkdirSync(dirname(stampFile), { recursive: true });
writeFileSync(stampFile, `${JSON.stringify({ root, inputs, dist: distHash() }, null, 2)}\n`);
console.error(`rxslice prepare: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
