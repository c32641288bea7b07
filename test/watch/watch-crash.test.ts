// `rxslice watch --store` beside two writers, SIGKILLed and restarted twice: every session ends
// equal to a replay of its final file, with no event applied twice and none skipped.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeDirOf } from '../../src/watch/watch-transcripts';
import { bundleCli, compareWithReplay, startChild, type Child } from './watch-harness';

const here = dirname(fileURLToPath(import.meta.url));
const data = join(here, '..', '..', 'examples', 'data');
const writer = join(here, 'writer-child.mjs');

let cli: string;
let root: string;
const children: Child[] = [];

beforeAll(async () => {
  cli = await bundleCli();
  root = mkdtempSync(join(tmpdir(), 'rxslice-watch-crash-'));
});
afterAll(() => {
  for (const c of children) c.proc.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const record = (line: string): { type: string; label?: string; offset?: number; message?: string } => {
  try {
    return JSON.parse(line) as { type: string };
  } catch {
    return { type: 'other' };
  }
};

/** The offset each label reached according to the child's output (updates, and "continuing at byte N" notices). */
function offsets(lines: readonly string[]): Map<string, number> {
  const reached = new Map<string, number>();
  for (const line of lines) {
    const r = record(line);
    if (r.label === undefined || r.label === null) continue;
    const at = r.type === 'update' ? r.offset : Number(/continuing at byte (\d+)/.exec(r.message ?? '')?.[1] ?? 0);
    reached.set(r.label, Math.max(reached.get(r.label) ?? 0, at ?? 0));
  }
  return reached;
}

describe('rxslice watch --store, killed and restarted', () => {
  it('ends with every session equal to a replay of its final file, each line applied once', async () => {
    const projects = join(root, 'projects');
    mkdirSync(join(projects, 's1', 'subagents'), { recursive: true });
    const store = join(root, 'store');
    const files = {
      s1: { source: join(data, 'agentlogs-crud.jsonl'), target: join(projects, 's1.jsonl') },
      's1/agent-a': { source: join(data, 'spotter-short.jsonl'), target: join(projects, 's1', 'subagents', 'agent-a.jsonl') },
    };
    const writers = Object.values(files).map((f, i) => startChild([writer, f.source, f.target, String(7 + i)]));
    children.push(...writers);
    const watchArgs = [cli, 'watch', projects, '--store', store, '--json'];

    // Two runs killed with SIGKILL as soon as they have applied something new.
    // (A run that finds nothing new - the writers already done - is killed once its files are read.)
    for (let run = 0; run < 2; run++) {
      const watch = startChild(watchArgs);
      children.push(watch);
      await watch.waitFor((line) => record(line).type === 'update' || writers.every((w) => w.proc.exitCode !== null));
      watch.proc.kill('SIGKILL');
      await watch.exited;
    }

    // The third run sees the writers finish, reads every file to its end, and stops on SIGTERM.
    const last = startChild(watchArgs);
    children.push(last);
    for (const w of writers) await w.exited;
    const sizes = Object.fromEntries(Object.entries(files).map(([label, f]) => [label, statSync(f.target).size]));
    await last.waitFor(() => Object.entries(sizes).every(([label, size]) => offsets(last.lines).get(label) === size));
    last.proc.kill('SIGTERM');
    expect(await last.exited).toBe(0);

    for (const [label, f] of Object.entries(files)) {
      const c = compareWithReplay(f.target, storeDirOf(store, label));
      expect(c.cursor.offset).toBe(c.fileBytes);
      expect(c.cursor.lines).toBe(c.replay.lines);
      // Every event of the file committed exactly once; each refused one recorded once.
      expect(c.cursor.events).toBe(c.replay.events);
      const rejected = [...c.replay.skipped].filter(([reason]) => reason.startsWith('rejected by the session')).reduce((sum, [, n]) => sum + n, 0);
      expect(c.cursor.refused).toBe(rejected);
      expect(c.storedState).toEqual(c.replayState);
      expect({ ...c.stored, source: '', timing: null, lines: 0, skippedLines: 0, events: 0, eventsByType: null, skipped: null, notifications: null }).toEqual({
        ...c.replay,
        source: '',
        timing: null,
        lines: 0,
        skippedLines: 0,
        events: 0,
        eventsByType: null,
        skipped: null,
        notifications: null,
      });
      expect(c.replay.events).toBeGreaterThan(10);
    }
  });
});
