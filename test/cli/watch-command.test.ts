// `rxslice watch` in-process (runCli with captured output): the plain lines (not a terminal) and
// the --json records, new lines appended while it runs, bad paths.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/progress';
import type { TranscriptWatch } from '../../src/watch/watch-transcripts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-watch-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const source = readFileSync(path.join(ROOT, 'examples/data/spotter-short.jsonl'));
const cut = source.indexOf(0x0a, 5000) + 1;

function capture(isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: { write: (s: string) => out.push(s), isTTY, columns: 200 }, stderr: { write: (s: string) => err.push(s), isTTY: false }, cwd: tmp };
  return { io, out, err };
}

const until = async (condition: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

async function runWatch(args: string[], isTTY = false) {
  const c = capture(isTTY);
  let watch: TranscriptWatch | undefined;
  const code = await runCli(['watch', ...args], c.io, { onWatch: (w) => (watch = w) });
  return { ...c, code, watch: watch! };
}

describe('rxslice watch', () => {
  it('prints one plain line per update when stdout is not a terminal, notices on stderr', async () => {
    const dir = path.join(tmp, 'plain');
    mkdirSync(path.join(dir, 's1', 'subagents'), { recursive: true });
    appendFileSync(path.join(dir, 's1.jsonl'), source.subarray(0, cut));
    const w = await runWatch(['plain']);
    try {
      expect(w.code).toBe(0);
      expect(w.err.join('')).toBe(`rxslice watch: s1: watching ${path.join(dir, 's1.jsonl')}\n`);
      expect(w.out).toHaveLength(1);
      expect(w.out[0]).toMatch(/^\d\d:\d\d:\d\d s1 \+8 lines \+9 events \| executing \| tools 1 \(0 failed\) \| tokens 25,366 \| 8 lines, 5,929 bytes\n$/);
      appendFileSync(path.join(dir, 's1', 'subagents', 'agent-a.jsonl'), source);
      appendFileSync(path.join(dir, 's1.jsonl'), source.subarray(cut));
      await until(() => w.out.length >= 3, 'two more updates');
      expect(w.err.join('')).toContain(`s1/agent-a: watching ${path.join(dir, 's1', 'subagents', 'agent-a.jsonl')} (subagent of s1)`);
      expect(w.out.join('')).toMatch(/ s1\/agent-a \+15 lines \+17 events \| waitingForUser \| tools 2 \(2 failed\) \| tokens 25,366 \| 15 lines, 10,491 bytes\n/);
      expect(w.out.join('')).toMatch(/ s1 \+7 lines \+8 events \| waitingForUser \| tools 2 \(2 failed\) \| tokens 25,366 \| 15 lines, 10,491 bytes\n/);
    } finally {
      await w.watch.close();
    }
  });

  it('--json prints one record per update and per notice', async () => {
    const dir = path.join(tmp, 'json');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'a.jsonl');
    appendFileSync(file, source.subarray(0, cut));
    const w = await runWatch([file, '--json']);
    try {
      await until(() => w.out.length >= 2, 'the first update');
      const [notice, update] = w.out.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(notice).toMatchObject({ type: 'notice', label: 'a', message: `a: watching ${file}` });
      expect(update).toMatchObject({ type: 'update', label: 'a', parent: null, newLines: 8, newEvents: 9, refused: 0, restarted: null, phase: 'executing', toolCalls: 1, errors: 0, pending: 1, tokens: 25_366, lines: 8, events: 9, offset: cut, closed: false });
      expect(w.err).toEqual([]);
      appendFileSync(file, 'not json\n');
      await until(() => w.out.length >= 3, 'the second update');
      expect(JSON.parse(w.out[2]!)).toMatchObject({ type: 'update', newLines: 1, newEvents: 0, lines: 9, offset: cut + 9 });
      rmSync(file);
      await until(() => w.out.length >= 4, 'the notice of the removal');
      expect(JSON.parse(w.out[3]!)).toMatchObject({ type: 'notice', label: 'a', message: `a: ${file} disappeared; its session is closed` });
    } finally {
      await w.watch.close();
    }
  });

  it('draws one row per session on a terminal and redraws the table in place, notices above it', async () => {
    const dir = path.join(tmp, 'tty');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'live.jsonl');
    appendFileSync(file, source.subarray(0, cut));
    const w = await runWatch([file], true);
    try {
      await until(() => /executing/.test(w.out.join('')), 'the row of the session');
      const text = w.out.join('');
      expect(text).toContain(`rxslice watch: live: watching ${file}\n`);
      expect(text).toMatch(/session +phase +tools +failed +tokens +last activity\nlive +executing +1 +0 +25,366 +\d+\.\d s ago\n$/);
      expect(w.err).toEqual([]);
      w.out.length = 0;
      appendFileSync(file, source.subarray(cut));
      await until(() => /waitingForUser/.test(w.out.join('')), 'the redrawn row');
      // The two lines of the previous table are erased before the new one is written.
      expect(w.out.join('')).toMatch(/\x1b\[2A\x1b\[Jsession[^\n]*\nlive +waitingForUser +2 +2 +25,366 /);
    } finally {
      await w.watch.close();
    }
  });

  it('skips a path that does not exist, and fails when nothing is left to watch', async () => {
    const w = await runWatch(['missing']);
    expect(w.code).toBe(1);
    expect(w.err.join('')).toBe(
      `rxslice watch: ${path.join(tmp, 'missing')} does not exist; skipping it\nrxslice watch: nothing to watch (give transcript files or directories; the default is ~/.claude/projects)\n`,
    );
    expect(w.out).toEqual([]);
  });
});
