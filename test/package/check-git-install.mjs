// `npm run check:git-install`: installs the repository from git into an empty project, the way the
// README's "Install" section tells a user to, and checks that the package works there.
//
// 1. A temporary clone of the committed HEAD (uncommitted changes are not in it) is installed with
//    `npm install git+file://<clone>#<commit> rxjs zod` into an empty project. npm clones it, runs
//    `npm install` in the clone (dev dependencies included) and the `prepare` script, which builds
//    dist/ (scripts/prepare.mjs), and installs the packed result. npm runs prepare twice there:
//    the build runs once, and the second run (before packing) skips it.
// 2. The installed package has dist/ (every file `exports` names, and the bin's dist/cli/main.js)
//    and no src/; `rxslice` loads under `import` and `require`, and every other entry loads or fails
//    only for want of an optional peer (entry-checks.cjs, as check:entries does for the tarball).
// 3. The bin runs: `npx rxslice --version` and `npx rxslice -v` print package.json's version (npx
//    finds the installed bin; no `--no` before the name: npx would then read `-v` as its own flag).
// 4. With the optional peers installed (at the ranges of the repository's devDependencies) every
//    entry loads under `import` and `require` and shares one copy of the core.
// 5. A React app and a Vue app built there as a user builds them (check-apps.mjs): typed hooks, a
//    misspelled event type that fails tsc, vite production builds with rxslice's share of each
//    bundle printed, and both apps rendered and clicked in headless Chromium.
//
// npm runs with --prefer-offline, so packages in the npm cache (~/.npm) are not downloaded again;
// with the repository's own dependencies cached it still takes about 2 minutes of CPU, nearly all
// of it the clone's `npm install` (~650 MB of dev dependencies) and the tsup build: 10 to 15
// minutes of wall time on a loaded 2-core machine, so it is not part of `npm test` (.ci/run runs it). The temporary directory is removed on success and kept (its path printed)
// on failure.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkApps } from './check-apps.mjs';
import { TEST_RENDERERS, optionalPeers, packageEntries, readPackage, runEntryChecks } from './package-entries.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const head = git(root, 'rev-parse', 'HEAD');
if (git(root, 'status', '--porcelain', '--untracked-files=no') !== '') console.log(`check:git-install: uncommitted changes are not tested: this installs the commit ${head.slice(0, 12)}`);

// The package as committed: its exports, version and peers (not the working tree's package.json).
const pkg = JSON.parse(git(root, 'show', `${head}:package.json`));
const entries = packageEntries(pkg);
const peers = optionalPeers(pkg);
const failures = [];
const fail = (message) => failures.push(message);
const timings = [];
const appLines = [];
const timed = (label, fn) => {
  const started = Date.now();
  try {
    return fn();
  } finally {
    timings.push(`${label} ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
};

const work = mkdtempSync(join(tmpdir(), 'rxslice-git-install-'));
// Scripts in the foreground (the setting passes through the environment to the npm that prepares
// the clone), so the prepare script's lines show in the output.
const npm = (cwd, args) =>
  spawnSync('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_foreground_scripts: 'true' },
  });
try {
  // 1. A clone holding only the commit under test (a branch of its own, so npm can fetch it).
  const repo = join(work, 'repo');
  git(work, 'init', '--quiet', repo);
  git(repo, 'fetch', '--quiet', '--depth', '1', `file://${root}`, head);
  git(repo, 'update-ref', 'refs/heads/main', head);
  git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'git-install-check', version: '1.0.0', private: true }, null, 2)}\n`);
  const spec = `git+file://${repo}#${head}`;
  const install = timed('npm install (git)', () => npm(project, ['install', spec, 'rxjs', 'zod']));
  if (install.status !== 0) throw new Error(`npm install ${spec} rxjs zod failed (exit ${install.status}):\n${(install.stderr || install.stdout).trimEnd()}`);
  // npm runs prepare twice on a git dependency: in the clone's `npm install` (which builds; npm
  // keeps that npm's output to itself) and before packing the clone, which shows in the output and
  // must find dist/ built from the same sources and skip the build.
  const output = install.stdout + install.stderr;
  const builds = output.split('rxslice prepare: built dist/').length - 1;
  const skips = output.split('rxslice prepare: dist/ is up to date').length - 1;
  if (builds !== 0 || skips !== 1) fail(`npm install from git: the prepare run before packing should skip the build done by the clone's npm install, but it printed ${builds} build(s) and ${skips} skip(s)`);

  // 2. What was installed, and the entries without the optional peers.
  const installed = join(project, 'node_modules', pkg.name);
  const installedPkg = readPackage(installed);
  if (installedPkg.version !== pkg.version) fail(`installed ${pkg.name} has version ${installedPkg.version}, not ${pkg.version}`);
  if (existsSync(join(installed, 'src'))) fail('the installed package holds src/ (the `files` list ships dist/ only)');
  if (!existsSync(join(installed, 'LICENSE'))) fail('the installed package has no LICENSE');
  const exported = entries.flatMap((entry) => ['import', 'require'].flatMap((format) => ['types', 'default'].map((kind) => pkg.exports[entry][format][kind])));
  const missing = [...exported, './dist/cli/main.js'].filter((file) => !existsSync(join(installed, file)));
  // Without them nothing below can load: one failure says so, not one per entry and format.
  if (missing.length > 0) throw new Error(`installed from git without ${missing.length} built file(s): ${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', ...' : ''} (is the prepare script building dist/?)`);
  timed('entry checks (core deps)', () => runEntryChecks(project, { withOptionalPeers: false, entries, optionalPeers: peers })).forEach(fail);

  // 3. The bin, as a user runs it.
  for (const flag of ['--version', '-v']) {
    const r = spawnSync('npx', ['rxslice', flag], { cwd: project, encoding: 'utf8' });
    if (r.status !== 0 || r.stdout.trim() !== pkg.version) fail(`npx rxslice ${flag}: expected "${pkg.version}" and exit 0, got exit ${r.status}:\n${(r.stdout + r.stderr).trimEnd()}`);
  }

  // 4. Every entry with the optional peers (at the versions the repository tests with).
  const extras = [...peers, ...TEST_RENDERERS].map((name) => `${name}@${pkg.devDependencies[name]}`);
  const peersInstall = timed('npm install (optional peers)', () => npm(project, ['install', ...extras]));
  if (peersInstall.status !== 0) fail(`npm install of the optional peers failed (exit ${peersInstall.status}):\n${(peersInstall.stderr || peersInstall.stdout).trimEnd()}`);
  else {
    timed('entry checks (optional peers)', () => runEntryChecks(project, { withOptionalPeers: true, entries, optionalPeers: peers })).forEach(fail);
    // 5. A React app and a Vue app on the installed package: typed hooks, a typo that fails tsc,
    //    production builds with rxslice's share measured, rendered in Chromium (check-apps.mjs).
    const apps = await checkApps({ root, project, pkg, npm, timed });
    apps.failures.forEach(fail);
    appLines.push(...apps.summary);
  }
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}

if (failures.length > 0) {
  console.error(`check:git-install: ${failures.length} problem(s) (${timings.join(', ')}; kept ${work})\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
rmSync(work, { recursive: true, force: true });
console.log(`check:git-install: ${pkg.name}@${pkg.version} from git+file:// (${head.slice(0, 12)}): dist/ built by prepare, ${entries.length} entries load under import and require, npx rxslice -v prints ${pkg.version} (${timings.join(', ')})`);
for (const line of appLines) console.log(`check:git-install: ${line}`);
