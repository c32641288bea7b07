/** scripts/check-src-imports.mjs (run by `npm run cycles`): src/ imports nothing outside src/. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = path.join(ROOT, 'scripts/check-src-imports.mjs');
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-src-imports-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const check = (root?: string) => spawnSync(process.execPath, [SCRIPT, ...(root === undefined ? [] : [root])], { encoding: 'utf8' });

/** A scratch repository whose src/ holds `files` (path under src/ → text). */
function repo(name: string, files: Record<string, string>): string {
  const root = path.join(tmp, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, 'src', file)), { recursive: true });
    writeFileSync(path.join(root, 'src', file), text);
  }
  return root;
}

describe('check-src-imports', () => {
  it('passes on this repository: src/ never imports examples/ (or anything else outside src/)', () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('fails on an import, export-from, import() or require() that leaves src/, naming file and line', () => {
    const root = repo('bad', {
      'cli/a.ts': "import { x } from '../../examples/agent-transcript/durable';\n",
      'cli/b.ts': "// fine\nexport { y } from '../../test/fixtures';\n",
      'c.ts': "const m = await import('../bench/run');\nconst n = require('../scripts/x');\n",
      'ok.ts': "import { z } from 'zod';\nimport { a } from './cli/a';\nimport type { B } from '../src/cli/b';\n",
    });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('src/cli/a.ts:1 imports "../../examples/agent-transcript/durable" (examples/agent-transcript/durable), outside src/');
    expect(r.stderr).toContain('src/cli/b.ts:2 imports "../../test/fixtures"');
    expect(r.stderr).toContain('src/c.ts:1 imports "../bench/run"');
    expect(r.stderr).toContain('src/c.ts:2 imports "../scripts/x"');
    expect(r.stderr).not.toContain('ok.ts');
  });
});
