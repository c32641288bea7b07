import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Runs the README's API tour: the ```ts blocks under "## API tour", in order, as one program
 * (imports hoisted, `rxslice` mapped to the sources), and checks that what it prints matches
 * the `// →` lines, in order.
 */
const root = resolve(__dirname, '../..');

function tourProgram(readme: string): { program: string; expected: string[] } {
  const tour = readme.slice(readme.indexOf('## API tour'), readme.indexOf('## Semantics in brief'));
  const blocks = [...tour.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const imports: string[] = [];
  const body: string[] = [];
  const expected: string[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line.startsWith('import ')) {
        let stmt = line;
        while (!/from '[^']+';\s*$/.test(stmt) && i + 1 < lines.length) stmt += '\n' + lines[++i];
        imports.push(stmt);
      } else {
        body.push(line);
        const m = /^\/\/ → (.*)$/.exec(line.trim());
        if (m) expected.push(m[1] as string);
      }
    }
  }
  const mapped = imports.map((i) =>
    i.replace(`from 'rxslice/testing'`, `from '${join(root, 'src/testing/index.ts')}'`).replace(`from 'rxslice'`, `from '${join(root, 'src/index.ts')}'`),
  );
  return { program: [...mapped, ...body].join('\n'), expected };
}

describe('README API tour', () => {
  it('runs and prints what the README says it prints', () => {
    const { program, expected } = tourProgram(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(expected.length).toBeGreaterThan(10);
    const dir = mkdtempSync(join(root, 'node_modules', '.tour-'));
    const file = join(dir, 'tour.ts');
    writeFileSync(file, program);
    let out: string;
    try {
      out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const printed = out.trimEnd().split('\n');
    expect(printed).toEqual(expected);
  });
});
