import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSignalDirectory } from '../../../src/jsonl/index';
import { onLines } from '../../child-lines';
import { Numbered, signalDir } from './signal-fixtures';

// Real processes over one directory: claims are renames, so exclusivity and the return of a dead
// claimer's signal are properties of the file system and of process death, not of one event loop.

const childFile = join(dirname(fileURLToPath(import.meta.url)), 'signal-child.ts');

interface Child {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  /** Resolves with the first line that satisfies `test` (rejects if the child exits first). */
  line(test: (line: string) => boolean): Promise<string>;
}

function start(args: readonly string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', childFile, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: { test: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  onLines(proc.stdout, (l) => {
    lines.push(l);
    for (const w of [...waiting]) if (w.test(l)) { waiting.splice(waiting.indexOf(w), 1); w.resolve(l); }
  });
  let exitedResolve!: (code: number | null) => void;
  const exited = new Promise<number | null>((r) => (exitedResolve = r));
  proc.on('close', (code) => exitedResolve(code));
  return {
    proc,
    lines,
    exited,
    line: (test) => {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiting.push({ test, resolve });
        void exited.then(() => reject(new Error(`child exited without the line; it printed:\n${lines.join('\n')}`)));
      });
    },
  };
}

const ids = (lines: readonly string[], verb: string): string[] => lines.filter((l) => l.startsWith(`${verb} `)).map((l) => l.slice(verb.length + 1));

describe('a signal directory shared by processes', () => {
  it('two pollers in two processes over 300 signals: each handled and archived exactly once, none lost, none left', async () => {
    const dir = signalDir();
    const signals = createSignalDirectory({ dir, channel: Numbered });
    const total = 300;
    // Half before the pollers start, half while they run: they compete for a queue that grows.
    for (let n = 0; n < total / 2; n++) signals.publish({ n, by: 'test' });
    const children = [start([dir, 'watch', String(total)]), start([dir, 'watch', String(total)])];
    await Promise.all(children.map((c) => c.line((l) => l === 'ready')));
    for (let n = total / 2; n < total; n++) signals.publish({ n, by: 'test' });
    const codes = await Promise.all(children.map((c) => c.exited));
    expect(codes).toEqual([0, 0]);
    const handled = children.flatMap((c) => ids(c.lines, 'handled'));
    const archived = children.flatMap((c) => ids(c.lines, 'archived'));
    expect(children.flatMap((c) => c.lines.filter((l) => l.startsWith('error ')))).toEqual([]);
    expect(handled).toHaveLength(total);
    expect(new Set(handled).size).toBe(total);
    expect(new Set(archived)).toEqual(new Set(handled));
    // Both competed (neither drained the queue alone).
    for (const c of children) expect(ids(c.lines, 'handled').length).toBeGreaterThan(0);
    // Each child took its signals in order: its own handling sequence follows the publish order.
    for (const c of children) {
      const order = ids(c.lines, 'handling');
      expect([...order].sort((a, b) => Number(a.split('-')[2]) - Number(b.split('-')[2]))).toEqual(order);
    }
    expect(readdirSync(join(dir, 'processed'))).toHaveLength(total);
    expect(signals.poll()).toEqual([]);
    expect(readdirSync(join(dir, 'claimed'))).toEqual([]);
    expect(readdirSync(join(dir, 'rejected'))).toEqual([]);
    rmSync(dirname(dir), { recursive: true, force: true });
  }, 120_000);

  it('two competing pollers, one SIGKILLed mid-run: the survivor takes the dead one\'s signal again; every signal archived once, none lost', async () => {
    const dir = signalDir();
    const signals = createSignalDirectory({ dir, channel: Numbered });
    const total = 120;
    for (let n = 0; n < total; n++) signals.publish({ n, by: 'test' });
    // The victim's handler takes 500 ms, so a kill sent as soon as it says `handling` lands inside
    // it. It starts first; once the survivor competes too, the victim's next `handling` is the cue.
    const victim = start([dir, 'watch', String(total), '500']);
    await victim.line((l) => l.startsWith('handling '));
    const survivor = start([dir, 'watch', String(total), '10']);
    await survivor.line((l) => l.startsWith('handling '));
    const before = ids(victim.lines, 'handling').length;
    await victim.line(() => ids(victim.lines, 'handling').length > before);
    victim.proc.kill('SIGKILL');
    await victim.exited;
    expect(await survivor.exited).toBe(0);
    const unfinished = ids(victim.lines, 'handling').filter((id) => !ids(victim.lines, 'handled').includes(id));
    expect(unfinished).toHaveLength(1);
    const survivorHandled = ids(survivor.lines, 'handled');
    expect(survivorHandled).toContain(unfinished[0]); // taken again
    // Nothing archived by one was handled by the other; nothing handled twice by one.
    for (const id of ids(victim.lines, 'archived')) expect(survivorHandled).not.toContain(id);
    expect(new Set(survivorHandled).size).toBe(survivorHandled.length);
    expect(survivor.lines.filter((l) => l.startsWith('error '))).toEqual([]);
    // None lost, none left: every signal is in processed/ (names are unique, so once each).
    expect(readdirSync(join(dir, 'processed'))).toHaveLength(total);
    expect(readdirSync(join(dir, 'claimed'))).toEqual([]);
    expect(signals.poll()).toEqual([]);
    rmSync(dirname(dir), { recursive: true, force: true });
  }, 120_000);

  it('a poller SIGKILLed mid-handling: its claim is returned to the queue at the next poll, in its place, and handled again', async () => {
    const dir = signalDir();
    const signals = createSignalDirectory({ dir, channel: Numbered });
    const published = [0, 1, 2].map((n) => signals.publish({ n, by: 'test' }));
    const victim = start([dir, 'hang']);
    const claimedLine = await victim.line((l) => l.startsWith('claimed '));
    expect(claimedLine).toBe(`claimed ${published[0]!.id}`);
    // While its claimer lives, the signal is not ours to take (same host, live pid, lease not run out).
    expect(signals.poll().map((s) => s.signal.n)).toEqual([1, 2]);
    expect(readdirSync(join(dir, 'claimed'))).toHaveLength(1);
    victim.proc.kill('SIGKILL');
    await victim.exited;
    // The claimer is dead: the next poll returns its signal, first in order as published.
    expect(signals.poll().map((s) => s.signal.n)).toEqual([0, 1, 2]);
    const again = signals.claimNext();
    expect(again?.id).toBe(published[0]!.id);
    signals.archive(again!);
    expect(readdirSync(join(dir, 'processed'))).toEqual([`${published[0]!.id}.json`]);
    expect(readdirSync(join(dir, 'claimed'))).toEqual([]);
    rmSync(dirname(dir), { recursive: true, force: true });
  }, 60_000);
});
