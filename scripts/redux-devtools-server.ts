/**
 * The `@redux-devtools/cli` server that the DevTools bridge test runs against, installed on
 * demand into `tools/redux-devtools-server/` from its own lockfile.
 *
 * Why not a devDependency: the server drags in ~290 MB (the DevTools app, electron's package,
 * Apollo) and warns about Node 22 engines of packages the test never loads. Keeping it out of
 * the project's install makes `npm ci` for a contributor about a third smaller and silent; the
 * one test that needs the server pays for it once (about a minute, cached afterwards).
 *
 * `npx tsx scripts/redux-devtools-server.ts` installs it ahead of time (prints the path of the
 * server's entry point).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOOL = path.join(ROOT, 'tools/redux-devtools-server');
const ENTRY = path.join(TOOL, 'node_modules/@redux-devtools/cli/bin/redux-devtools.js');

/**
 * The path of the redux-devtools server's entry point, installing the tool first when it is
 * missing (`npm ci` from `tools/redux-devtools-server/package-lock.json`, install scripts off:
 * electron's would download a browser, which the server does not use).
 * @throws Error with npm's output when the install failed (no registry, no disk).
 */
export function reduxDevToolsServer(): string {
  if (existsSync(ENTRY)) return ENTRY;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  try {
    execFileSync(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], { cwd: TOOL, stdio: 'pipe', timeout: 300_000 });
  } catch (e) {
    const out = e as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`installing the redux-devtools server in ${TOOL} failed:\n${out.stdout?.toString() ?? ''}${out.stderr?.toString() ?? String(e)}`);
  }
  if (!existsSync(ENTRY)) throw new Error(`npm ci in ${TOOL} did not install ${ENTRY}`);
  return ENTRY;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(reduxDevToolsServer());
}
