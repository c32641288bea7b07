import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/index';
import { jsonl } from '../../src/jsonl/index';
import { onLines } from '../child-lines';
import { NoteAdded, Notes } from '../fixtures';

/**
 * The README, CONTRIBUTING.md and every page under docs/ are checked against the repository:
 * every relative link resolves (the file exists; a `#anchor` is a heading of its target, as
 * GitHub makes anchors), and the command output they quote is what the commands print now
 * (`rxslice replay`, `rxslice stats`, `rxslice inspect` and the demo are run once each, and their
 * output is reused by every assertion). A quoted block may shorten the output: a line `...`
 * stands for any lines, `...` inside a line for any text; the other lines must come out in order.
 */
const root = resolve(__dirname, '../..');
const BIN = join(root, 'bin/rxslice.mjs');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return relative(root, path) === 'docs/api' ? [] : markdownFiles(path); // docs/api: TypeDoc's output, git-ignored
    return name.endsWith('.md') ? [path] : [];
  });
}
const pages = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...markdownFiles(join(root, 'docs'))];
const read = (file: string) => readFileSync(file, 'utf8');
/** The text outside fenced code blocks and inline code spans (links there are code, not links). */
const prose = (text: string) => text.replace(/^ *```[\s\S]*?^ *```/gm, '').replace(/`[^`\n]*`/g, '``');

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, each space a hyphen, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replace(/^ *```[\s\S]*?^ *```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = (m[1] as string).toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Each block (a fenced block, or one line after `# → `) must appear in `output`, in order. */
function missingLines(quoted: string, output: string): string[] {
  const actual = output.split('\n').map((l) => l.trimEnd());
  const missing: string[] = [];
  let at = 0;
  for (const line of quoted.split('\n').map((l) => l.trimEnd())) {
    if (line.trim() === '' || line.trim() === '...') continue;
    const pattern = new RegExp('^' + line.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
    const found = actual.findIndex((l, i) => i >= at && pattern.test(l));
    if (found === -1) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

/** The body of the fenced block that follows `marker` in `text` (indentation removed). */
function blockAfter(text: string, marker: string): string {
  const from = text.indexOf(marker);
  expect(from, `"${marker}" is in the page`).toBeGreaterThanOrEqual(0);
  const m = /^( *)```[a-z]*\n([\s\S]*?)^ *```/m.exec(text.slice(from));
  expect(m, `a fenced block follows "${marker}"`).not.toBeNull();
  const indent = (m?.[1] as string).length;
  return (m?.[2] as string).split('\n').map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join('\n');
}

describe('links in README.md, CONTRIBUTING.md and docs/', () => {
  it('finds the pages and their links', () => {
    expect(pages.map((p) => relative(root, p))).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/ARCHITECTURE.md', 'docs/guide/devtools.md']));
  });

  it('every relative link names a file that exists, and every #anchor a heading of it', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const m of prose(read(page)).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1] as string;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        checked++;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
        const where = `${relative(root, page)}: ${m[0]}`;
        if (!existsSync(file)) broken.push(`${where}: ${relative(root, file)} does not exist`);
        else if (anchor !== undefined && !(file.endsWith('.md') && anchors(read(file)).has(anchor))) broken.push(`${where}: no heading #${anchor} in ${relative(root, file)}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  });

  it('anchors as GitHub makes them, and a broken link is found', () => {
    expect([...anchors('# A b\n## The live inspector: `rxslice watch --inspect`\n```sh\n# not a heading\n```\n## A b\n')]).toEqual(['a-b', 'the-live-inspector-rxslice-watch---inspect', 'a-b-1']);
    expect(missingLines('a\n...\nc ... d', 'a\nb\nc 1 2 d')).toEqual([]);
    expect(missingLines('c\na', 'a\nc')).toEqual(['a']);
  });
});

describe('command output quoted in the docs is what the commands print', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rxslice-docs-'));
  const run = (args: string[], cwd = root) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, INIT_CWD: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
  const data = join(root, 'examples/data');
  const transcripts = readdirSync(data).filter((f) => f.endsWith('.jsonl')).sort();
  let stats = '';
  let inspectLine = '';
  let demo = '';
  let refusals = '';

  beforeAll(async () => {
    // docs/guide/devtools.md's commands: `rxslice replay examples/data/*.jsonl --record r.jsonl`, then stats and inspect.
    run([BIN, 'replay', ...transcripts.map((f) => join('examples/data', f)), '--record', join(tmp, 'r.jsonl')]);
    stats = run([BIN, 'stats', 'r.jsonl'], tmp);
    const inspect = spawn(process.execPath, [BIN, 'inspect', 'r.jsonl', '--port', '0'], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INIT_CWD: tmp } });
    inspectLine = await new Promise<string>((done, fail) => {
      onLines(inspect.stdout, done);
      inspect.once('exit', (code) => fail(new Error(`rxslice inspect exited with ${String(code)}`)));
    });
    inspect.kill();
    // devtools.md's refusals: each command pointed at a kind of input it does not read.
    const smallest = transcripts.reduce((a, b) => (statSync(join(data, b)).size < statSync(join(data, a)).size ? b : a));
    copyFileSync(join(data, smallest), join(tmp, 'session.jsonl'));
    copyFileSync(join(tmp, 'r.jsonl'), join(tmp, 'run.jsonl'));
    const store = createSession({ slices: [Notes], storage: jsonl({ dir: join(tmp, '.agent/session') }) });
    store.dispatch(NoteAdded({ id: 1, text: 'kept' }));
    store.dispose();
    for (const args of [['stats', 'session.jsonl'], ['replay', 'run.jsonl'], ['history', '.agent/session', '--thread', 't1']]) {
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: tmp, encoding: 'utf8', env: { ...process.env, INIT_CWD: tmp } });
      expect([args, r.status]).toEqual([args, 1]);
      refusals += r.stderr;
    }
    // The README's "What the demo prints": the demo's report for the largest bundled transcript.
    const largest = transcripts.reduce((a, b) => (statSync(join(data, b)).size > statSync(join(data, a)).size ? b : a));
    demo = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples/agent-transcript/main.ts'), join('examples/data', largest)], { cwd: root, encoding: 'utf8' });
  }, 240_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('docs/guide/devtools.md: `rxslice stats r.jsonl` on the bundled transcripts', () => {
    const page = read(join(root, 'docs/guide/devtools.md'));
    expect(missingLines(blockAfter(page, '**`rxslice stats <recording> [--json]`**'), stats)).toEqual([]);
  });

  it('docs/guide/devtools.md: what `rxslice inspect r.jsonl` prints', () => {
    const page = read(join(root, 'docs/guide/devtools.md'));
    const quoted = /npx rxslice inspect r\.jsonl +# → (.+)$/m.exec(page)?.[1];
    const port = /:(\d+)\//.exec(inspectLine)?.[1] as string;
    expect(inspectLine.replace(`:${port}/`, ':4400/')).toContain(quoted);
  });

  it('docs/guide/devtools.md: the refusals of a command pointed at the wrong kind of input', () => {
    const page = read(join(root, 'docs/guide/devtools.md'));
    expect(missingLines(blockAfter(page, '**Every command tells what a path is before reading it**'), refusals)).toEqual([]);
  });

  it('docs/guide/live.md: what `rxslice watch` says while the paths hold no transcript', async () => {
    const page = read(join(root, 'docs/guide/live.md'));
    const quoted = /\(`(rxslice watch:\s+waiting for transcripts:[^`]*)`/.exec(page)?.[1]?.replace(/\s+/g, ' ');
    expect(quoted).toBeDefined();
    const dir = join(tmp, 'p');
    mkdirSync(dir);
    const watch = spawn(process.execPath, [BIN, 'watch', dir], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INIT_CWD: tmp } });
    try {
      const said = await new Promise<string>((done, fail) => {
        onLines(watch.stderr, done);
        watch.once('exit', (code) => fail(new Error(`rxslice watch exited with ${String(code)}`)));
      });
      expect(said.replaceAll(dir, '/p')).toBe(quoted);
    } finally {
      watch.kill();
    }
  }, 60_000);

  it("README.md: the demo's report of the largest bundled transcript", () => {
    expect(missingLines(blockAfter(read(join(root, 'README.md')), '## What the demo prints'), demo)).toEqual([]);
  });
});

describe("the README's benchmark figures are the committed run's (bench/RESULTS.md)", () => {
  it('names its date, commit and duration, and quotes rxslice\'s medians of the Summary table', () => {
    const readme = read(join(root, 'README.md'));
    const results = read(join(root, 'bench/RESULTS.md'));
    const run = /From the committed run \(`bench\/RESULTS\.md`, (\d{4}-\d\d-\d\d), commit ([0-9a-f]+),[\s\S]*?([\d,]+) s\)/.exec(readme);
    expect(run, 'the README names the run').not.toBeNull();
    expect(results).toContain(`on ${run?.[1] as string}T`);
    expect(results).toMatch(new RegExp(`- Commit: ${run?.[2] as string} `));
    expect(results).toContain(`- Whole run: ${run?.[3] as string} s`);
    const num = (text: string) => Number(text.replace(/,/g, ''));
    const compared: string[] = [];
    for (const m of readme.matchAll(/^\| (1|2|3|6|7m|8|10a|16m) [^|]*\| (?:epic )?([\d,.]+) /gm)) {
      const id = m[1] as string;
      const quoted = m[2] as string;
      const row = results.split('\n').find((l) => l.startsWith(`| ${id}. `) && !l.includes('first 1,000'));
      const median = row?.split('|')[4]?.trim().split(' ')[0];
      expect(median, `bench/RESULTS.md has a Summary row for workload ${id}`).toBeDefined();
      const decimals = quoted.split('.')[1]?.length ?? 0;
      expect([id, num(quoted)]).toEqual([id, Number(num(median as string).toFixed(decimals))]);
      compared.push(id);
    }
    expect(compared).toEqual(['1', '2', '3', '6', '7m', '8', '10a', '16m']);
  });
});
