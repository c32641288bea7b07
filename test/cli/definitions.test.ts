/**
 * `--session <module>` (src/cli/definitions.ts): a TypeScript module outside the repository is
 * loaded through tsx (issue 23 item 7), in-process and through the bin as a user runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSession } from '../../src/index';
import { definitionsFor } from '../../src/cli/definitions';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/progress';
import { flightRecorder } from '../../src/jsonl/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// A directory outside the repository, as a user's project would be.
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-session-module-'));
const file = path.join(tmp, 'plain.jsonl');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.doUnmock('tsx/esm/api'));

function io(cwd = tmp) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIO = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, cwd };
  return { io: value, out: () => out.join(''), err: () => err.join('') };
}

beforeAll(() => {
  const session = createSession({ slices: [Notes, Counter] });
  const recorder = flightRecorder(session, { file });
  session.dispatch(NoteAdded({ id: 1, text: 'a' }));
  session.dispatch(CounterBumped({ by: 2 }));
  recorder.close();
  session.dispose();
  const fixtures = pathToFileURL(path.join(ROOT, 'test/fixtures.ts')).href;
  // TypeScript only (types, `satisfies`), importing a sibling .ts file without its extension.
  writeFileSync(path.join(tmp, 'names.ts'), 'export const NAMES: readonly string[] = ["notes", "counter"];\n');
  const body = [
    `import { Counter, Notes } from '${fixtures}';`,
    "import { NAMES } from './names';",
    'interface Defs { readonly slices: readonly { readonly name: string }[] }',
    'const all = [Notes, Counter];',
    'export const slices = NAMES.map((n: string) => all.find((s) => s.name === n)!) satisfies Defs["slices"];',
    '',
  ].join('\n');
  writeFileSync(path.join(tmp, 'session.ts'), body);
  writeFileSync(path.join(tmp, 'session.mts'), body);
});

describe('--session <module> written in TypeScript, outside the repository', () => {
  it('loads a .ts module (and the .ts files it imports) through tsx', async () => {
    const defs = await definitionsFor(file, 'session.ts', tmp);
    expect(defs.slices.map((s) => s.name)).toEqual(['notes', 'counter']);
    const c = io();
    expect(await runCli(['stats', file, '--session', path.join(tmp, 'session.ts')], c.io)).toBe(0);
    expect(c.err()).toBe('');
    expect(c.out()).toContain('events      2 (seq 0–2)');
  });

  it('works through the bin, run from that directory (node, no test runner in between)', () => {
    for (const module of ['session.ts', 'session.mts']) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/rxslice.mjs'), 'stats', file, '--session', module], {
        cwd: tmp,
        encoding: 'utf8',
        env: { ...process.env, INIT_CWD: tmp },
        timeout: 60_000,
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('events      2 (seq 0–2)');
    }
  });

  it('without tsx installed, says to install it or compile the module, and loads nothing', async () => {
    vi.doMock('tsx/esm/api', () => {
      throw new Error("Cannot find package 'tsx' imported from definitions.ts");
    });
    const c = io();
    expect(await runCli(['stats', file, '--session', 'session.ts'], c.io)).toBe(1);
    expect(c.out()).toBe('');
    expect(c.err()).toContain('rxslice: --session module "session.ts" is TypeScript, and loading it needs the package tsx, which is not installed: run `npm i -D tsx` beside rxslice, or compile the module to JavaScript');
  });

  it('a TypeScript module that does not compile is a clear error naming it', async () => {
    writeFileSync(path.join(tmp, 'broken.ts'), 'export const slices = [;\n');
    const c = io();
    expect(await runCli(['stats', file, '--session', 'broken.ts'], c.io)).toBe(1);
    expect(c.err()).toContain('cannot load --session module "broken.ts"');
  });
});

describe('rxslice --version', () => {
  it('prints the version of package.json', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    for (const flag of ['--version', '-V']) {
      const c = io(ROOT);
      expect(await runCli([flag], c.io)).toBe(0);
      expect(c.out()).toBe(`${version}\n`);
    }
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/rxslice.mjs'), '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout).toBe(`${version}\n`);
  });
});
