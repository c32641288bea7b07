// watchTranscripts catching up: lines applied in runs, one file after the other, yielding between
// slices, with progress reports while it catches up and none for an append applied in one slice.
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProgress } from '../../src/cli/watch-command';
import { watchTranscripts, type CatchUpProgress, type TranscriptWatch } from '../../src/watch/watch-transcripts';
import { WatchedTranscript } from '../../src/watch/watched-transcript';

const data = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'data');
// 1,512 lines (3.2 MB) and 15 lines.
const large = join(data, 'spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
const small = join(data, 'spotter-short.jsonl');

let dir: string;
let watch: TranscriptWatch | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-watch-progress-'));
});
afterEach(async () => {
  await watch?.close();
  watch = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const lineCount = (file: string): number => readFileSync(file, 'utf8').split('\n').length - 1;

describe('watchTranscripts catching up', () => {
  it('applies runs of at most 256 lines, one file after the other, reports progress while it catches up and once caught up', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    copyFileSync(large, a);
    copyFileSync(large, b);
    const updates: { label: string; lines: number }[] = [];
    const progress: CatchUpProgress[] = [];
    // One run per slice and a report after each: the sequence does not depend on the machine's speed.
    watch = watchTranscripts({ paths: [dir], sliceMs: 0, progressMs: 0, onUpdate: (w, r) => updates.push({ label: w.label, lines: r.lines }), onProgress: (p) => progress.push(p) });
    await watch.ready;
    const total = statSync(a).size + statSync(b).size;
    // Every line applied by the time `ready` resolves.
    for (const file of [a, b]) expect(watch.transcripts.get(file)!.cursor).toMatchObject({ offset: statSync(file).size, lines: lineCount(file) });
    expect(updates.every((u) => u.lines > 0 && u.lines <= 256)).toBe(true);
    expect(updates.filter((u) => u.label === 'a')).toHaveLength(Math.ceil(lineCount(a) / 256));
    // One file after the other (chokidar finds them in either order).
    const first = updates[0]!.label;
    expect(updates.findIndex((u) => u.label !== first)).toBe(updates.length / 2);
    // A report after each slice, the last once every file is caught up: 12 runs in 11 slices (the
    // slice that finishes the first file goes on with the second's first run).
    expect(updates).toHaveLength(12);
    expect(progress).toHaveLength(11);
    const last = progress.at(-1)!;
    expect(last).toMatchObject({ files: 2, caughtUp: 2, bytes: total, totalBytes: total });
    // (The first slices may run before the scan found the second file.)
    expect(progress.slice(0, -1).every((p) => p.caughtUp < p.files && p.bytes < p.totalBytes && p.totalBytes <= total)).toBe(true);
    expect(progress.slice(1).every((p, i) => p.bytes >= progress[i]!.bytes)).toBe(true);
    // Once the first file is caught up, its every byte counts (and the second's applied ones).
    const firstDone = progress.filter((p) => p.caughtUp === 1);
    expect(firstDone.length).toBeGreaterThan(0);
    expect(firstDone.every((p) => p.bytes > statSync(a).size)).toBe(true);
    expect(formatProgress(progress.at(-2)!)).toMatch(/^catching up: 1 of 2 files, 6\.\d of 6\.3 MB \(\d+\.\d s\)$/);
    expect(formatProgress(last)).toMatch(/^caught up: 2 files, 6\.3 MB in \d+\.\d s$/);

    // An append applied in one run: an update, no progress report.
    const reports = progress.length;
    const before = updates.length;
    appendFileSync(a, readFileSync(small).subarray(0, readFileSync(small).indexOf(0x0a) + 1));
    for (let i = 0; i < 400 && updates.length === before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(updates.slice(before)).toEqual([{ label: 'a', lines: 1 }]);
    expect(progress).toHaveLength(reports);
  });
});

describe('WatchedTranscript.pump(maxLines)', () => {
  it('applies at most maxLines lines and keeps the rest read for the next call', () => {
    const file = join(dir, 't.jsonl');
    copyFileSync(small, file);
    const watched = new WatchedTranscript({ file, label: 't' });
    expect(watched.pump(4)).toMatchObject({ lines: 4 });
    expect(watched.backlogLines).toBe(11);
    expect(watched.hasNewBytes()).toBe(true);
    expect(watched.pump(10)).toMatchObject({ lines: 10 });
    expect(watched.pump(10)).toMatchObject({ lines: 1 });
    expect(watched.backlogLines).toBe(0);
    expect(watched.hasNewBytes()).toBe(false);
    expect(watched.cursor).toMatchObject({ lines: 15, offset: statSync(file).size, eventsInLine: 0 });
    expect(() => watched.pump(0)).toThrow(RangeError);
    watched.close();
  });
});
