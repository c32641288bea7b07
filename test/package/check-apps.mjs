// The apps a new user builds on the installed package (step 5 of `npm run check:git-install`):
// a React app and a Vue app (test/package/apps/: a todo store, typed hooks from
// `createSessionHooks` / composables from `createSessionComposables`, render functions, no JSX or
// SFC compiler), in the project that installed rxslice from git. The React app runs on
// `createSession`, the Vue app on `createStore` (the README's browser-bundle advice). For each app:
//
// 1. `tsc` passes on the app, and fails on `typo.ts`, which dispatches `'todo/addd'` through the
//    typed hook: the error must name the misspelled type.
// 2. `vite build` (production) bundles it; rxslice's modules go to a chunk of their own
//    (`manualChunks`), so its share of the app's JavaScript is measured as the bundler emits it:
//    minified bytes and gzip (zlib default level) of that chunk beside the whole app's.
// 3. Headless Chromium opens the built app from a local HTTP server: adding a todo and toggling it
//    update the list and the computed count, with no error in the console.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CHROMIUM_ARGS, ensureChromium } from '../../scripts/ensure-chromium.mjs';

const APPS = ['react', 'vue'];
/** The tooling the apps need beside what the project has (vite 8 supports Node ^20.19). */
const TOOLS = (pkg) => ['vite@^8', `typescript@${pkg.devDependencies.typescript}`, `@types/react@${pkg.devDependencies['@types/react']}`, `@types/react-dom@${pkg.devDependencies['@types/react-dom']}`];

const TSCONFIG = (files) => ({
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023', 'DOM'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  files,
});

const VITE_CONFIG = `// rxslice's modules in a chunk of their own, so that its share of the app can be measured. The
// other packages (rxjs, zod, immer, react or vue) go to a vendor group of higher priority first:
// a group takes the dependencies of its modules with it, so rxslice's group would otherwise hold
// every package only rxslice imports (Vite 8's Rolldown, output.codeSplitting).
export default {
  logLevel: 'warn',
  build: {
    outDir: process.env.APP_OUT,
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /[\\/]node_modules[\\/](?!rxslice[\\/])/, priority: 2 },
            { name: 'rxslice', test: /[\\/]node_modules[\\/]rxslice[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
};
`;

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

/**
 * Runs the checks in `project` (rxslice, rxjs, zod, react, react-dom and vue installed there).
 * @param {object} options
 * @param {string} options.root - the repository (the apps' sources, playwright-core)
 * @param {string} options.project - the project that installed rxslice
 * @param {object} options.pkg - the committed package.json
 * @param {(cwd: string, args: string[]) => import('node:child_process').SpawnSyncReturns<string>} options.npm
 * @param {(label: string, fn: () => any) => any} options.timed
 * @returns {Promise<{ failures: string[], summary: string[] }>} what failed, and one line per app
 */
export async function checkApps({ root, project, pkg, npm, timed }) {
  const failures = [];
  const summary = [];
  const tools = timed('npm install (app tooling)', () => npm(project, ['install', ...TOOLS(pkg)]));
  if (tools.status !== 0) return { failures: [`npm install of the app tooling failed (exit ${tools.status}):\n${(tools.stderr || tools.stdout).trimEnd()}`], summary };
  const apps = join(project, 'apps');
  cpSync(join(root, 'test/package/apps'), apps, { recursive: true });
  writeFileSync(join(apps, 'vite.config.mjs'), VITE_CONFIG);
  const tsc = (config) => spawnSync(join(project, 'node_modules/.bin/tsc'), ['-p', config], { cwd: apps, encoding: 'utf8' });

  // 1. Types: the apps compile; each typo fails and names the misspelled type.
  const files = ['todos.ts', ...APPS.flatMap((app) => [`${app}/session.ts`, `${app}/main.ts`])];
  writeFileSync(join(apps, 'tsconfig.json'), JSON.stringify(TSCONFIG(files), null, 2));
  const clean = timed('tsc (apps)', () => tsc('tsconfig.json'));
  if (clean.status !== 0) failures.push(`tsc on the apps failed (exit ${clean.status}):\n${clean.stdout.trimEnd()}`);
  for (const app of APPS) {
    writeFileSync(join(apps, `tsconfig.typo-${app}.json`), JSON.stringify(TSCONFIG([`${app}/typo.ts`]), null, 2));
    const typo = timed(`tsc (${app} typo)`, () => tsc(`tsconfig.typo-${app}.json`));
    const said = typo.stdout.split('\n').find((line) => line.includes('error TS')) ?? '';
    if (typo.status === 0) failures.push(`${app}: tsc accepted dispatch({ type: 'todo/addd' }) through the typed hook`);
    else if (!typo.stdout.includes('todo/addd')) failures.push(`${app}: tsc refused the typo without naming 'todo/addd':\n${typo.stdout.trimEnd()}`);
    else summary.push(`${app}: the typo fails tsc: ${said.replace(/^.*error /, 'error ').slice(0, 160)}`);
  }

  // 2. Production builds, and rxslice's share of each.
  const require = createRequire(join(root, 'package.json'));
  const { chromium } = require('playwright-core');
  const executablePath = ensureChromium('check:git-install');
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    for (const app of APPS) {
      const out = join(project, `dist-${app}`);
      const built = timed(`vite build (${app})`, () =>
        spawnSync(join(project, 'node_modules/.bin/vite'), ['build', '--config', '../vite.config.mjs'], { cwd: join(apps, app), encoding: 'utf8', env: { ...process.env, APP_OUT: out, NODE_ENV: 'production' } }),
      );
      if (built.status !== 0) {
        failures.push(`${app}: vite build failed (exit ${built.status}):\n${(built.stderr || built.stdout).trimEnd()}`);
        continue;
      }
      const scripts = readdirSync(join(out, 'assets')).filter((f) => f.endsWith('.js'));
      const sizes = scripts.map((f) => {
        const bytes = readFileSync(join(out, 'assets', f));
        return { file: f, min: bytes.length, gzip: gzipSync(bytes).length };
      });
      const own = sizes.filter((s) => s.file.startsWith('rxslice'));
      if (own.length === 0) {
        failures.push(`${app}: the build has no rxslice chunk (${scripts.join(', ')}): manualChunks did not take`);
        continue;
      }
      const sum = (list, key) => list.reduce((n, s) => n + s[key], 0);
      const share = `rxslice ${kb(sum(own, 'min'))} min, ${kb(sum(own, 'gzip'))} gzip of the app's ${kb(sum(sizes, 'min'))} min, ${kb(sum(sizes, 'gzip'))} gzip (${((100 * sum(own, 'min')) / sum(sizes, 'min')).toFixed(0)}% of its JavaScript)`;

      // 3. The built app in Chromium.
      const problems = await renderApp(browser, out, app);
      if (problems.length > 0) failures.push(...problems.map((p) => `${app}: ${p}`));
      else summary.push(`${app}: renders and updates in Chromium; ${share}`);
    }
  } finally {
    await browser.close();
  }
  return { failures, summary };
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** Serves `dir` on a free local port, opens it in a new page, adds and toggles a todo; answers what went wrong. */
async function renderApp(browser, dir, app) {
  const server = createServer((req, res) => {
    const path = req.url === '/' ? '/index.html' : (req.url ?? '/').split('?')[0];
    // The app has no icon; the browser's own request for one is not the app's error.
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    try {
      const body = readFileSync(join(dir, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const problems = [];
  const expectText = async (selector, expected, when) => {
    try {
      await page.waitForFunction(([s, t]) => document.querySelector(s)?.textContent === t, [selector, expected], { timeout: 15_000 });
    } catch {
      problems.push(`${when}: expected ${selector} to read ${JSON.stringify(expected)}, it reads ${JSON.stringify(await page.locator(selector).textContent().catch(() => null))}`);
    }
  };
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await expectText('#remaining', '0 of 0 left', 'first render');
    await page.fill('#draft', 'milk');
    await page.click('#add');
    await expectText('#remaining', '1 of 1 left', 'after adding "milk"');
    await expectText('#todos li', 'milk', 'after adding "milk"');
    await page.click('#todos li');
    await expectText('#remaining', '0 of 1 left', 'after toggling "milk"');
    if (errors.length > 0) problems.push(`the browser console shows ${errors.length} error(s): ${errors.join(' | ')}`);
  } finally {
    await page.close();
    server.close();
  }
  return problems;
}

