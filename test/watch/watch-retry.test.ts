import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession } from '../../src/index';
import { jsonl } from '../../src/jsonl/index';
import { storeDirOf, transcriptLabel, watchTranscripts } from '../../src/watch/watch-transcripts';

// Issue 37: a transcript whose store was held by another writer when the watch found it, and that
// changes no more, stayed unopened; the watch now tries again until it opens.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rxslice-watch-retry-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
};

describe('watchTranscripts: a store held by another writer', () => {
  it('is reported once, tried again, and opened once freed, without the file changing', async () => {
    const dir = join(root, 'transcripts');
    const store = join(root, 'store');
    mkdirSync(dir);
    const sample = readFileSync(join(__dirname, '../../examples/data', 'spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl'), 'utf8').split('\n').slice(0, 5).join('\n') + '\n';
    const file = join(dir, 'held.jsonl');
    writeFileSync(file, sample);
    // Another writer (here a session of this process) holds the transcript's store directory.
    const holder = createSession({ slices: [], storage: jsonl({ dir: storeDirOf(store, transcriptLabel(file).label) }) });
    const notices: string[] = [];
    const watch = watchTranscripts({ paths: [dir], store, recheckMs: 50, onNotice: (n) => notices.push(n) });
    try {
      await watch.ready;
      expect(await until(() => notices.some((n) => n.includes('cannot open')), 5_000)).toBe(true);
      await new Promise((r) => setTimeout(r, 500)); // several retries, still held
      expect(watch.transcripts.has(file)).toBe(false);
      expect(notices.filter((n) => n.includes('cannot open'))).toHaveLength(1);
      holder.dispose();
      expect(await until(() => watch.transcripts.get(file)?.cursor.lines === 5, 5_000)).toBe(true);
      expect(notices.some((n) => n.includes('watching'))).toBe(true);
    } finally {
      holder.dispose();
      await watch.close();
    }
  }, 30_000);
});
