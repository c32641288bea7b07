import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/ARCHITECTURE.md is the architecture document of this repository: the paths it names exist
 * (unless its line marks them planned), and the code cites it, never a design file outside the repo.
 */
const root = resolve(__dirname, '../..');
const doc = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mts|cts|mjs|cjs|js)$/.test(name) ? [path] : [];
  });
}

describe('docs/ARCHITECTURE.md', () => {
  it('names only paths that exist, or marks them planned', () => {
    const missing: string[] = [];
    for (const line of doc.split('\n')) {
      for (const m of line.matchAll(/`((?:src|test|marbles|examples|bench|docs)\/[^`\s]*)`|^(src\/[\w/.-]+)/g)) {
        const path = (m[1] ?? m[2]) as string;
        if (!path.includes('<') && !existsSync(join(root, path)) && !/planned/i.test(line)) missing.push(path);
      }
    }
    expect(missing).toEqual([]);
  });

  it('lists every folder of src/ in its layers', () => {
    const layers = doc.slice(doc.indexOf('## Layers'), doc.indexOf('### Entry points'));
    const folders = readdirSync(join(root, 'src')).filter((f) => statSync(join(root, 'src', f)).isDirectory());
    for (const folder of folders) expect(layers, folder).toContain(`src/${folder}/`);
  });

  it('is what the code cites: no comment points at a DESIGN.md outside the repository', () => {
    const citing = ['src', 'test', 'marbles', 'examples', 'bench']
      .flatMap((dir) => files(join(root, dir)))
      .filter((file) => file !== __filename && /DESIGN\.md/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(citing).toEqual([]);
  });
});
