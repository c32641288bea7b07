// `rxslice watch --store --json` on a transcript with lines that are not JSON (cut off by a writer
// that crashed), while a writer appends it and the watch is SIGKILLed and restarted: each such line
// is reported (file, line number, the parser's reason) by the run that reads it, again by a restart
// only when the killed run had not committed it, and the stored session ends equal to a replay of
// the file (no event lost or applied twice).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeDirOf } from '../../src/watch/watch-transcripts';
import { bundleCli, compareWithReplay, startChild, type Child } from './watch-harness';

const here = dirname(fileURLToPath(import.meta.url));
const writer = join(here, 'writer-child.mjs');

let cli: string;
let root: string;
const children: Child[] = [];

beforeAll(async () => {
  cli = await bundleCli();
  root = mkdtempSync(join(tmpdir(), 'rxslice-watch-notice-'));
});
afterAll(() => {
  for (const c of children) c.proc.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

interface WatchLine {
  readonly type: string;
  readonly label?: string;
  readonly offset?: number;
  readonly message?: string;
  readonly file?: string;
  readonly line?: number;
  readonly reason?: string;
}
const parse = (line: string): WatchLine => {
  try {
    return JSON.parse(line) as WatchLine;
  } catch {
    return { type: 'other' };
  }
};

/** Polls `condition` every 25 ms for up to 30 s (a loaded machine is slow to start node); fails with what `child` printed. */
async function until(condition: () => boolean, what: string, child: Child): Promise<void> {
  for (let i = 0; i < 1200 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!condition()) throw new Error(`timed out waiting for ${what}; the watch printed:\n${child.lines.join('\n')}`);
}

describe('rxslice watch --store --json: lines that are not JSON, the watch killed and restarted', () => {
  it('reports each such line once it reads it, again only if it was not committed, and loses or repeats no event', async () => {
    // agentlogs-crud.jsonl with three lines cut off in the middle, at lines 3, 12 and 25 of the result.
    const lines = readFileSync(join(here, '..', '..', 'examples', 'data', 'agentlogs-crud.jsonl'), 'utf8').split('\n');
    const cutAt = [3, 12, 25];
    const withCuts: string[] = [];
    for (const [i, line] of lines.entries()) {
      if (cutAt.includes(withCuts.length + 1)) withCuts.push(line.slice(0, Math.floor(line.length / 2)));
      withCuts.push(line);
      if (i === lines.length - 1) break;
    }
    const source = join(root, 'source.jsonl');
    writeFileSync(source, withCuts.join('\n'));
    const starts = new Map<number, number>(); // line number -> byte offset of its start
    let offset = 0;
    withCuts.forEach((line, i) => {
      starts.set(i + 1, offset);
      offset += Buffer.byteLength(line) + 1;
    });
    const projects = join(root, 'projects');
    mkdirSync(projects, { recursive: true });
    const target = join(projects, 's1.jsonl');
    const store = join(root, 'store');
    const w = startChild([writer, source, target, '11']);
    children.push(w);
    const watchArgs = [cli, 'watch', projects, '--store', store, '--json'];

    const runs: WatchLine[][] = [];
    // Two runs killed with SIGKILL as soon as they have applied something new, or, once the
    // writer is done, as soon as they run (there may be nothing new left for them).
    for (let run = 0; run < 2; run++) {
      const watch = startChild(watchArgs);
      children.push(watch);
      await until(() => watch.lines.some((l) => parse(l).type === 'update') || (w.proc.exitCode !== null && watch.lines.length > 0), 'an update', watch);
      watch.proc.kill('SIGKILL');
      await watch.exited;
      runs.push(watch.lines.map(parse));
    }
    // The last run reads the file to its end: an update there, or nothing new ("continuing at byte <size>").
    const last = startChild(watchArgs);
    children.push(last);
    await w.exited;
    const size = statSync(target).size;
    await until(() => last.lines.map(parse).some((r) => (r.type === 'update' && r.offset === size) || (r.type === 'notice' && r.message?.includes(`continuing at byte ${size} `) === true)), 'the end of the file', last);
    last.proc.kill('SIGTERM');
    expect(await last.exited).toBe(0);
    runs.push(last.lines.map(parse));

    const reported = runs.map((records) => records.filter((r) => r.type === 'notice' && r.line !== undefined));
    for (const notice of reported.flat()) {
      expect(notice).toMatchObject({ label: 's1', file: target, message: `s1: line ${notice.line} of ${target} is not JSON (${notice.reason}); it gives no event` });
      expect(notice.reason).toMatch(/^invalid JSON: /);
    }
    // Every cut line is reported, and nothing else.
    expect([...new Set(reported.flat().map((n) => n.line))].sort((a, b) => a! - b!)).toEqual(cutAt);
    // A run reports a line at most once; a line that a run committed (an update past it printed) is not reported by later runs.
    for (const [run, notices] of reported.entries()) {
      expect(new Set(notices.map((n) => n.line)).size).toBe(notices.length);
      for (const n of notices) {
        const committedBefore = runs.slice(0, run).some((records) => records.some((r) => r.type === 'update' && (r.offset ?? 0) > (starts.get(n.line!) ?? Infinity)));
        expect({ run, line: n.line, committedBefore }).toEqual({ run, line: n.line, committedBefore: false });
      }
    }
    // The stored session equals a replay of the final file: every event once.
    const c = compareWithReplay(target, storeDirOf(store, 's1'));
    expect(c.cursor.offset).toBe(c.fileBytes);
    expect(c.cursor.lines).toBe(withCuts.length - 1);
    expect(c.cursor.events).toBe(c.replay.events);
    expect(c.replay.skipped.get('invalid JSON')).toBe(cutAt.length);
    expect(c.storedState).toEqual(c.replayState);
  });
});
