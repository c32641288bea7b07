// The directory lock's kill window: a child process SIGKILLs itself after each step of the lock's
// acquisition and release (every change it makes to the directory, proper-lockfile's mkdir,
// utimes and rmdir included), and a new opener must take the lock at once, with no wait for
// staleness. The same child SIGSTOPped at each step is a live owner: its lock is never taken.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDirectory, type DirectoryLock } from '../../../src/jsonl/directory-lock';
import { onLines } from '../../child-lines';

let childFile: string;
const roots: string[] = [];
const running = new Set<ChildProcess>();

beforeAll(async () => {
  const { build } = await import('esbuild');
  childFile = join(mkdtempSync(join(tmpdir(), 'rxslice-lock-child-')), 'lock-child.cjs');
  roots.push(dirname(childFile));
  await build({ entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'lock-child.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: childFile, logLevel: 'error' });
});
afterAll(() => {
  for (const proc of running) proc.kill('SIGKILL');
  for (const d of roots) rmSync(d, { recursive: true, force: true });
});

interface Child {
  readonly proc: ChildProcess;
  readonly lines: string[];
  /** The signal that ended the child (null: it exited). */
  readonly ended: Promise<NodeJS.Signals | null>;
  /** Resolves once the child printed `line`. */
  printed(line: string): Promise<void>;
}

function start(dir: string, mode: 'none' | 'kill' | 'stop' | 'hold-kill', at = 0): Child {
  const proc = spawn(process.execPath, [childFile, dir, mode, String(at)], { stdio: ['ignore', 'pipe', 'inherit'] });
  running.add(proc);
  const lines: string[] = [];
  const waiters: [string, () => void][] = [];
  onLines(proc.stdout, (line) => {
    lines.push(line);
    for (const w of waiters.filter(([l]) => l === line)) w[1]();
  });
  const ended = new Promise<NodeJS.Signals | null>((resolve) =>
    proc.on('close', (_code, signal) => {
      running.delete(proc);
      resolve(signal);
    }),
  );
  const printed = (line: string): Promise<void> =>
    lines.includes(line)
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => waiters.push([line, resolve])),
          ended.then(() => {
            if (!lines.includes(line)) throw new Error(`the child ended without printing "${line}"; it printed:\n${lines.join('\n')}`);
          }),
        ]);
  return { proc, lines, ended, printed };
}

/** Resolves once process `pid` is stopped (it prints its step, then stops itself: SIGCONT sent before would be lost). */
async function stoppedState(pid: number): Promise<void> {
  const state = (): string =>
    existsSync('/proc') ? (/^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? '') : execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  while (!state().startsWith('T')) await new Promise((resolve) => setTimeout(resolve, 2));
}

const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-lock-'));
  roots.push(d);
  return d;
};
const owner = (dir: string): { pid: number } | undefined => (existsSync(join(dir, 'LOCK.owner.json')) ? (JSON.parse(readFileSync(join(dir, 'LOCK.owner.json'), 'utf8')) as { pid: number }) : undefined);
/** The lock's own entries in `dir` (temp files a killed process left are not among them). */
const lockEntries = (dir: string): string[] => readdirSync(dir).filter((n) => n === 'LOCK' || n === 'LOCK.takeover' || n === 'LOCK.owner.json');

/** The state a scenario starts from, made by a child killed at the right moment. */
const scenarios: Record<string, (dir: string) => Promise<void>> = {
  'a free directory': async () => undefined,
  'a lock left by a holder killed while holding it': async (dir) => {
    const holder = start(dir, 'hold-kill');
    expect(await holder.ended).toBe('SIGKILL');
    expect(lockEntries(dir).sort()).toEqual(['LOCK', 'LOCK.owner.json']);
  },
  'a mutex left by a process killed while acquiring': async (dir) => {
    const acquirer = start(dir, 'kill', 2);
    expect(await acquirer.ended).toBe('SIGKILL');
    expect(acquirer.lines.at(-1)).toBe('step 2 mutex-made');
  },
};

let compromised = 0;
const lockHere = (dir: string): DirectoryLock => lockDirectory(dir, { stale: 10_000, onCompromised: () => compromised++ });

/** The steps of one acquisition and release from the scenario's start, as the child names them. */
async function stepsOf(scenario: string): Promise<string[]> {
  const dir = freshDir();
  await scenarios[scenario]!(dir);
  const child = start(dir, 'none');
  expect(await child.ended).toBeNull();
  expect(child.lines.at(-1)).toBe('released');
  return child.lines.filter((l) => l.startsWith('step '));
}

describe('directory lock, killed or stopped at every step', () => {
  for (const scenario of Object.keys(scenarios)) {
    it(`from ${scenario}: a killed process's lock is taken at once; a stopped (live) one's never`, async () => {
      const steps = await stepsOf(scenario);
      expect(steps.some((s) => s.endsWith(' lock-made'))).toBe(true);
      for (let at = 1; at <= steps.length; at++) {
        const where = `${scenario}, ${steps[at - 1]}`;

        // SIGKILL right after step `at`: the next opener takes the lock at once.
        let dir = freshDir();
        await scenarios[scenario]!(dir);
        const killed = start(dir, 'kill', at);
        expect(await killed.ended, where).toBe('SIGKILL');
        const started = performance.now();
        let lock: DirectoryLock;
        try {
          lock = lockHere(dir);
        } catch (e) {
          throw new Error(`killed after ${where}: the next opener could not take the lock: ${(e as Error).message}`);
        }
        expect(performance.now() - started, where).toBeLessThan(1000);
        expect(owner(dir)?.pid, where).toBe(process.pid);
        lock.release();
        expect(lockEntries(dir), where).toEqual([]);

        // SIGSTOP right after step `at`: the stopped child is alive. While it holds the lock
        // nobody else gets it; whoever gets it while the child is stopped keeps it when the
        // child goes on, and the child then reports the directory locked.
        dir = freshDir();
        await scenarios[scenario]!(dir);
        const stopped = start(dir, 'stop', at);
        await stopped.printed(steps[at - 1]!);
        await stoppedState(stopped.proc.pid!);
        const childHolds = stopped.lines.includes('acquired') && !stopped.lines.slice(stopped.lines.indexOf('acquired')).some((l) => l.endsWith(' lock-removed'));
        let mine: DirectoryLock | undefined;
        try {
          mine = lockHere(dir);
        } catch (e) {
          expect((e as { code?: string }).code, where).toBe('STORAGE_LOCKED');
        }
        if (childHolds) expect(mine, `${where}: a live holder's lock was taken`).toBeUndefined();
        const heldBefore = stopped.lines.includes('acquired');
        stopped.proc.kill('SIGCONT');
        expect(await stopped.ended, where).toBeNull();
        if (mine !== undefined) {
          expect(stopped.lines.at(-1), where).toBe(heldBefore ? 'released' : 'locked');
          expect(owner(dir)?.pid, `${where}: the child's release removed the new holder's owner file`).toBe(process.pid);
          expect(existsSync(join(dir, 'LOCK')), where).toBe(true);
          mine.release();
        } else {
          expect(stopped.lines.at(-1), where).toBe('released');
          lockHere(dir).release();
        }
        expect(lockEntries(dir), where).toEqual([]);
      }
      expect(compromised).toBe(0);
    }, 180_000);
  }
});
