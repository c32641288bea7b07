import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Runs every ```ts block of the README and of the guide pages (docs/guide/*.md). The blocks of
 * one `## ` section of one page form one program, in
 * order: their imports are merged and hoisted (`rxslice` and its subpaths mapped to the sources),
 * the program is type-checked with the repository's tsconfig, then run with tsx, and what it
 * prints must match the section's `// →` lines, in order. A block written as a vitest test
 * (`it(...)` with `expect`) gets vitest's `expect` and an `it` that runs the test at once.
 *
 * A block that cannot run says so and why in its fence: ```ts no-run: <reason>. Keep them rare.
 */
const root = resolve(__dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const guideDir = join(root, 'docs/guide');
/** The pages whose blocks run: the README, then every guide page. */
const pages = [
  { name: 'README', text: readme },
  ...readdirSync(guideDir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => ({ name: `docs/guide/${f}`, text: readFileSync(join(guideDir, f), 'utf8') })),
];

interface Block {
  readonly code: string;
  /** The reason given by a ```ts no-run: <reason> fence; undefined for blocks that run. */
  readonly noRun: string | undefined;
}
interface Section {
  /** `<page>: <## title>`. */
  readonly title: string;
  readonly blocks: readonly Block[];
}

/** The README's `## ` sections with their TypeScript blocks. */
function sections(page: string, text: string): Section[] {
  return text
    .split(/^## /m)
    .slice(1)
    .map((chunk) => ({
      title: `${page}: ${chunk.slice(0, chunk.indexOf('\n')).trim()}`,
      blocks: [...chunk.matchAll(/^```(?:ts|typescript)\b([^\n]*)\n([\s\S]*?)^```/gm)].map((m) => {
        const info = (m[1] as string).trim();
        const noRun = /^no-run\b:?\s*(.*)$/.exec(info);
        return { code: m[2] as string, noRun: noRun ? (noRun[1] as string) : undefined };
      }),
    }))
    .filter((s) => s.blocks.length > 0);
}

/** `rxslice` and `rxslice/<sub>` → the source of that entry (package.json exports: ./dist/<name>.js ← src/<name>.ts). */
function sourceOf(specifier: string): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { import?: { default?: string } }> };
  const subpath = specifier === 'rxslice' ? '.' : `./${specifier.slice('rxslice/'.length)}`;
  const file = pkg.exports[subpath]?.import?.default;
  const name = file === undefined ? undefined : /^\.\/dist\/(.+)\.js$/.exec(file)?.[1];
  if (name === undefined) throw new Error(`README imports ${specifier}, which is not an entry of package.json exports`);
  return join(root, 'src', name); // no extension: tsc (Bundler resolution) and tsx both resolve it
}

/** Merges import statements: named specifiers per module (deduplicated), other forms as written. */
function mergeImports(statements: readonly string[]): string[] {
  const named = new Map<string, Set<string>>();
  const other = new Set<string>();
  for (const stmt of statements) {
    const m = /^import\s+(type\s+)?\{([\s\S]*)\}\s+from\s+'([^']+)';?\s*$/.exec(stmt.trim());
    if (!m) {
      other.add(stmt.trim());
      continue;
    }
    const specs = named.get(m[3] as string) ?? new Set<string>();
    for (const spec of (m[2] as string).split(',').map((s) => s.trim()).filter(Boolean)) specs.add(m[1] ? `type ${spec.replace(/^type\s+/, '')}` : spec);
    named.set(m[3] as string, specs);
  }
  const rewrite = (stmt: string) => stmt.replace(/from '(rxslice(?:\/[^']*)?)'/, (_all, spec: string) => `from '${sourceOf(spec)}'`);
  return [...[...named].map(([mod, specs]) => `import { ${[...specs].join(', ')} } from '${mod}';`), ...other].map(rewrite);
}

/** One section as a program, and the lines it must print. */
function program(section: Section): { source: string; expected: string[] } {
  const imports: string[] = [];
  const body: string[] = [];
  const expected: string[] = [];
  for (const block of section.blocks.filter((b) => b.noRun === undefined)) {
    const lines = block.code.split('\n');
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
  const prelude: string[] = [];
  if (body.some((l) => /^\s*it\(/.test(l))) {
    imports.push(`import { expect } from 'vitest';`);
    prelude.push('const it = (_name: string, test: () => void): void => test();');
  }
  return { source: [...mergeImports(imports), ...prelude, ...body].join('\n') + '\n', expected };
}

const slug = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const all = pages.flatMap((p) => sections(p.name, p.text));
let dir: string;

describe('README and guide', () => {
  beforeAll(() => {
    // Inside node_modules, so the programs resolve rxjs, zod, vitest, ... from the repository;
    // .mts, because package.json's "type" does not reach into node_modules (top-level await needs ESM).
    dir = mkdtempSync(join(root, 'node_modules', '.readme-'));
    for (const section of all) writeFileSync(join(dir, `${slug(section.title)}.mts`), program(section).source);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: join(root, 'tsconfig.json'), include: ['*.mts'], compilerOptions: { noEmit: true } }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every ts block: the tour and the Effects and epics section among them, no-run blocks rare and explained', () => {
    const titles = all.map((s) => s.title);
    expect(titles).toEqual(expect.arrayContaining(['README: Quick start', 'docs/guide/core.md: Core tour', 'docs/guide/effects-and-sagas.md: Effects and epics']));
    const noRun = all.flatMap((s) => s.blocks.filter((b) => b.noRun !== undefined).map((b) => ({ section: s.title, reason: b.noRun })));
    for (const b of noRun) expect(b.reason, `a no-run block in "${b.section}" must say why`).not.toBe('');
    expect(noRun.length).toBeLessThanOrEqual(2);
  });

  it('type-checks every program with the repository tsconfig', () => {
    let out = '';
    try {
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
    } catch (e) {
      out = String((e as { stdout?: string }).stdout ?? e).replaceAll(dir, '<readme>');
    }
    expect(out).toBe('');
    // One tsc run over every program: about 20 s alone on 2 cores, minutes when the suite's other
    // files load both cores (seen: 101 s), so it gets its own limit.
  }, 300_000);

  it('names the largest bundled transcript by size and the longest by lines, with their sizes', () => {
    const data = join(root, 'examples/data');
    const files = readdirSync(data)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => {
        const text = readFileSync(join(data, f), 'utf8');
        return { name: f, mb: (statSync(join(data, f)).size / 1e6).toFixed(1), lines: text.split('\n').filter((l) => l.trim() !== '').length };
      });
    const largest = files.reduce((a, b) => (Number(b.mb) > Number(a.mb) ? b : a));
    const longest = files.reduce((a, b) => (b.lines > a.lines ? b : a));
    const text = readme.replace(/\s+/g, ' ');
    const bySize = /largest file by size, `([^`…]+)…\.jsonl` \(([\d.]+) MB in ([\d,]+) lines/.exec(text);
    const byLines = /longest by lines, events and tool calls is `([^`…]+)…\.jsonl` \(([\d.]+) MB; ([\d,]+) lines/.exec(text);
    expect(bySize?.slice(1)).toEqual([largest.name.slice(0, bySize?.[1]?.length), largest.mb, largest.lines.toLocaleString('en-US')]);
    expect(byLines?.slice(1)).toEqual([longest.name.slice(0, byLines?.[1]?.length), longest.mb, longest.lines.toLocaleString('en-US')]);
  });

  for (const section of all) {
    it(`"${section.title}" runs and prints its // → lines`, () => {
      const { expected } = program(section);
      const out = execFileSync(process.execPath, ['--import', 'tsx', join(dir, `${slug(section.title)}.mts`)], { cwd: root, encoding: 'utf8' });
      expect(out.trimEnd() === '' ? [] : out.trimEnd().split('\n')).toEqual(expected);
    });
  }
});
