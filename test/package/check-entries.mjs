// `npm run check:entries` (after `npm run build`): checks the packed package as a user gets it.
//
// 1. package.json: the core installs only rxjs, zod and immer (and the bin its own dependencies); other packages are optional peers;
//    every file named in `exports` is built and packed, and LICENSE and README.md; no source maps are packed (src/ is not), nor
//    the bundled transcripts (their license notices stay with them in examples/data/).
// 2. dist: the core is built once per format and build (exactly one `class RxSliceError` in the ESM files,
//    one in the CommonJS files, one in the production build's ESM files under dist/production/), so no entry bundles its own copy.
// 3. The tarball from `npm pack` is unpacked into a scratch directory outside the repository with
//    only rxjs, zod and immer beside it: `rxslice` loads under `import` and `require`, and any
//    other entry either loads or fails only for want of an optional peer (rxslice/scxml does).
// 4. Then with the optional peers added (react-dom renders rxslice/react's hooks, vue's own server renderer rxslice/vue's): every entry loads under `import` and `require`,
//    shares the core's objects, and errors cross entries (`instanceof` holds) — entry-checks.cjs.
// 5. The packed bin loads a TypeScript `--session` module through the optional peer tsx, and
//    without tsx says to install it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN_DEPS, CORE_DEPS, TEST_RENDERERS, optionalPeers, packageEntries, readPackage, runEntryChecks } from './package-entries.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const pkg = readPackage(root);
const failures = [];
const fail = (message) => failures.push(message);

if (!existsSync(join(root, 'dist'))) {
  console.error('check:entries: dist/ is missing. Run `npm run build` first.');
  process.exit(1);
}

// 1. package.json
const optional = new Set(optionalPeers(pkg));
const installed = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}).filter((n) => !optional.has(n))];
for (const name of installed) if (!CORE_DEPS.includes(name) && !BIN_DEPS.includes(name)) fail(`package.json: "${name}" is installed with the core; make it an optional peer of its entry`);
for (const name of optional) if (!(name in (pkg.devDependencies ?? {}))) fail(`package.json: optional peer "${name}" is not a devDependency, so tests cannot use it`);

const entries = packageEntries(pkg);
const exportedFiles = [];
for (const entry of entries) {
  const conditions = pkg.exports[entry];
  for (const format of ['import', 'require']) {
    for (const kind of ['types', 'default']) {
      const file = conditions?.[format]?.[kind];
      if (typeof file !== 'string') fail(`package.json exports["${entry}"].${format}.${kind} is missing`);
      else exportedFiles.push(file.replace(/^\.\//, ''));
    }
  }
  // The production build of the entry (ESM only; the declarations are the development build's).
  const production = conditions?.import?.production;
  if (typeof production !== 'string') fail(`package.json exports["${entry}"].import.production is missing`);
  else exportedFiles.push(production.replace(/^\.\//, ''));
}
for (const file of exportedFiles) if (!existsSync(join(root, file))) fail(`${file} (in exports) was not built`);

// 2. one copy of the core per format
const distFiles = readdirSync(join(root, 'dist'), { recursive: true }).map(String);
const inProduction = (f) => f.startsWith('production/') || f.startsWith('production\\');
for (const [ext, production] of [['.js', false], ['.cjs', false], ['.js', true]]) {
  const copies = distFiles
    .filter((f) => f.endsWith(ext) && inProduction(f) === production)
    .filter((f) => /\bRxSliceError = class\b|\bclass RxSliceError\b/.test(readFileSync(join(root, 'dist', f), 'utf8')));
  if (copies.length !== 1) fail(`dist: the core is built ${copies.length} times in ${production ? 'production ' : ''}${ext} files (${copies.join(', ')}); every entry must share one copy`);
}

// 3 and 4. the packed package, in a scratch directory outside the repository
const scratch = mkdtempSync(join(tmpdir(), 'rxslice-entries-'));
try {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  const files = packed[0].files.map((f) => f.path);
  for (const file of exportedFiles) if (!files.includes(file)) fail(`npm pack: ${file} (in exports) is not in the tarball`);
  const maps = files.filter((f) => f.endsWith('.map'));
  if (maps.length > 0) fail(`npm pack: source maps are packed but src/ is not (${maps.slice(0, 3).join(', ')}, ...)`);
  for (const file of ['LICENSE', 'README.md']) if (!files.includes(file)) fail(`npm pack: ${file} is not in the tarball (package.json \`files\`)`);
  // The bundled agent transcripts stay in the repository, beside their license notices (examples/data/LICENSE-*).
  const transcripts = files.filter((f) => f.endsWith('.jsonl'));
  if (transcripts.length > 0) fail(`npm pack: transcripts are packed without their license notices (${transcripts.slice(0, 3).join(', ')})`);

  const modules = join(scratch, 'node_modules');
  mkdirSync(modules);
  execFileSync('tar', ['-xzf', join(scratch, packed[0].filename), '-C', modules]);
  renameSync(join(modules, 'package'), join(modules, 'rxslice'));
  const link = (name) => {
    // A scoped package (@langchain/core) lives in its scope's folder.
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  };
  CORE_DEPS.forEach(link);
  BIN_DEPS.forEach(link);
  // The bin runs from the tarball (dist/cli) with only the core's and its own dependencies.
  const bin = spawnSync(process.execPath, [join(modules, 'rxslice', pkg.bin.rxslice), '--help'], { cwd: scratch, encoding: 'utf8' });
  if (bin.status !== 0 || !bin.stdout.includes('replay')) fail(`bin rxslice --help from the tarball failed (exit ${bin.status}):\n${(bin.stderr || bin.stdout).trimEnd()}`);
  const run = (withOptionalPeers) => runEntryChecks(scratch, { withOptionalPeers, entries, optionalPeers: [...optional] }).forEach(fail);
  run(false);
  const rest = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
  [...new Set(rest)].filter((name) => !CORE_DEPS.includes(name) && !BIN_DEPS.includes(name)).forEach(link);
  // Not a peer of any entry, but what renders rxslice/react's hooks in the check (react-dom/server).
  TEST_RENDERERS.forEach(link);
  run(true);

  // 5. The bin loads a `--session` module written in TypeScript (a user's, beside the package,
  //    importing `rxslice`) through the optional peer tsx, linked above with the other peers.
  const sessionSource = (ts) =>
    [
      "import { z } from 'zod';",
      "import { append, defineEvent, defineSlice } from 'rxslice';",
      "export const Added = defineEvent('items/added', z.object({ n: z.number() }));",
      `export const slices = [defineSlice('items', { policy: 'log', reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload${ts ? ' satisfies { n: number }' : ''}))] })];`,
      '',
    ].join('\n');
  writeFileSync(join(scratch, 'session.mjs'), sessionSource(false));
  writeFileSync(join(scratch, 'session.ts'), sessionSource(true));
  const recorded = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      [
        "import { createSession } from 'rxslice';",
        "import { flightRecorder } from 'rxslice/storage/jsonl';",
        "import { slices, Added } from './session.mjs';",
        'const session = createSession({ slices });',
        "const recorder = flightRecorder(session, { file: 'plain.jsonl' });",
        'session.dispatch(Added({ n: 1 }));',
        'recorder.close();',
        'session.dispose();',
      ].join('\n'),
    ],
    { cwd: scratch, encoding: 'utf8', input: '' },
  );
  if (recorded.status !== 0) fail(`recording for the --session check failed:\n${recorded.stderr.trimEnd()}`);
  else {
    const stats = spawnSync(process.execPath, [join(modules, 'rxslice', pkg.bin.rxslice), 'stats', 'plain.jsonl', '--session', 'session.ts'], { cwd: scratch, encoding: 'utf8', env: { ...process.env, INIT_CWD: scratch } });
    if (stats.status !== 0 || !stats.stdout.includes('events      1')) fail(`bin rxslice stats --session session.ts from the tarball (tsx installed) failed (exit ${stats.status}):\n${(stats.stderr || stats.stdout).trimEnd()}`);
    rmSync(join(modules, 'tsx'), { recursive: true, force: true });
    const missing = spawnSync(process.execPath, [join(modules, 'rxslice', pkg.bin.rxslice), 'stats', 'plain.jsonl', '--session', 'session.ts'], { cwd: scratch, encoding: 'utf8', env: { ...process.env, INIT_CWD: scratch } });
    if (missing.status !== 1 || !missing.stderr.includes('needs the package tsx, which is not installed')) {
      fail(`bin rxslice stats --session session.ts without tsx: expected exit 1 and the install hint, got exit ${missing.status}:\n${(missing.stderr || missing.stdout).trimEnd()}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`check:entries: ${failures.length} problem(s)\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
console.log(`check:entries: ${entries.length} entries (${entries.join(', ')}) load under import and require and share one core`);
