import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSession } from '../../../src/index';
import { jsonl } from '../../../src/jsonl/index';
import { crashSaga, SagaLog, STEPS, type LogEntry } from './saga-crash-slices';

/** Bundles the child once (esbuild, CommonJS for Node 20) and returns the file to run with `node`. */
export async function bundleSagaChild(): Promise<string> {
  const { build } = await import('esbuild');
  const out = join(mkdtempSync(join(tmpdir(), 'rxslice-saga-child-')), 'saga-crash-child.cjs');
  await build({ entryPoints: [join(dirname(fileURLToPath(import.meta.url)), 'saga-crash-child.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: out, logLevel: 'error' });
  return out;
}

export interface ChildRun {
  readonly pid: number;
  readonly lines: string[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * Starts the child; `killAfterMs` SIGKILLs it from outside after that many ms past `ready`.
 * With `hold`, a child that opened keeps the directory locked after `done` until `release` is called
 * (it closes the child's stdin); `onLine` sees each line as it arrives.
 */
export function runChild(
  child: string,
  dir: string,
  calls: string,
  plan: string,
  opts: { killAfterEvents?: number; killAfterMs?: number; hold?: boolean; onLine?: (line: string) => void } = {},
): Promise<ChildRun> & { release(): void } {
  const env = { ...process.env, RXSLICE_SAGA_KILL_AFTER: String(opts.killAfterEvents ?? 0), RXSLICE_SAGA_HOLD: opts.hold ? '1' : '0' };
  const proc = spawn(process.execPath, [child, dir, calls, plan], { stdio: ['pipe', 'pipe', 'inherit'], env });
  const lines: string[] = [];
  let rest = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => {
    rest += chunk;
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      opts.onLine?.(line);
      if (line.startsWith('ready') && opts.killAfterMs !== undefined) setTimeout(() => proc.kill('SIGKILL'), opts.killAfterMs);
    }
  });
  const ended = new Promise<ChildRun>((r) => proc.on('close', (code, signal) => r({ pid: proc.pid as number, lines, code, signal })));
  return Object.assign(ended, { release: () => proc.stdin.end() });
}

/** One external call as recorded in the calls file. */
export interface Call {
  readonly kind: 'run' | 'compensate' | 'resume';
  readonly key: string;
  readonly pid: number;
  readonly lastSeq: number;
}

export function readCalls(file: string): Call[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [kind, key, pid, lastSeq] = l.split(' ') as [Call['kind'], string, string, string];
      return { kind, key, pid: Number(pid), lastSeq: Number(lastSeq) };
    });
}

/** The durable saga log of a directory (opened read-only after all children ended). */
export function readLog(dir: string): { log: LogEntry[]; unfinished: number } {
  const session = createSession({ slices: [SagaLog], sagas: [crashSaga('/dev/null', () => 0)], storage: jsonl({ dir, fsync: 'never' }) });
  try {
    return { log: [...(session.read(SagaLog) as LogEntry[])], unfinished: (session.read('rxslice/sagas') as unknown[]).length };
  } finally {
    session.dispose();
  }
}

/** Violations found in a directory's saga log and calls file; every count must be 0. */
export interface SagaCrashFindings {
  /** Planned sagas without exactly one `completed` (ok) or `failed` (fail) at the end. */
  badEnding: number;
  /** (saga, step) pairs with more than one stepSucceeded. */
  duplicateCompletions: number;
  /** (saga, step) pairs with more than one stepCompensated / compensationFailed. */
  doubleCompensations: number;
  /** Failure sagas whose compensations are not configureNetworking then createResources. */
  compensationOrder: number;
  /** A stepStarted recorded after the step's stepSucceeded (a completed step ran again). */
  rerunAfterCompletion: number;
  /** Keys with more external `run` calls than recorded stepStarted (a call nobody recorded). */
  unrecordedRuns: number;
  /** Compensation keys called more often than their compensation was started (≤ 1 + crashes in flight). */
  extraCompensationCalls: number;
  /** Sagas still in the rxslice/sagas progress slice. */
  unfinished: number;
}

export function check(dir: string, calls: string, plan: readonly [string, 'ok' | 'fail'][]): { findings: SagaCrashFindings; log: LogEntry[]; callList: Call[] } {
  const { log, unfinished } = readLog(dir);
  const callList = readCalls(calls);
  const f: SagaCrashFindings = { badEnding: 0, duplicateCompletions: 0, doubleCompensations: 0, compensationOrder: 0, rerunAfterCompletion: 0, unrecordedRuns: 0, extraCompensationCalls: 0, unfinished };
  for (const [id, kind] of plan) {
    const mine = log.filter((e) => e.sagaId === id);
    const ends = mine.filter((e) => e.type === 'completed' || e.type === 'failed').map((e) => e.type);
    if (ends.length !== 1 || ends[0] !== (kind === 'ok' ? 'completed' : 'failed') || mine.at(-1)?.type !== ends[0]) f.badEnding++;
    for (const name of STEPS) {
      const at = (type: string) => mine.flatMap((e, i) => (e.type === type && e.step === name ? [i] : []));
      const succeeded = at('stepSucceeded');
      const started = at('stepStarted');
      if (succeeded.length > 1) f.duplicateCompletions++;
      if (at('stepCompensated').length + at('compensationFailed').length > 1) f.doubleCompensations++;
      if (succeeded.length > 0 && started.some((i) => i > (succeeded[0] as number))) f.rerunAfterCompletion++;
      const runs = callList.filter((c) => c.kind === 'run' && c.key === `${id}/${name}`).length;
      if (runs > started.length) f.unrecordedRuns++;
      // A compensation is recorded once; its call repeats only if a crash hit it in flight (a resume follows).
      const comps = callList.filter((c) => c.kind === 'compensate' && c.key === `${id}/${name}/compensate`).length;
      const resumes = callList.filter((c) => c.kind === 'resume' && c.key === id).length;
      if (comps > 1 + resumes) f.extraCompensationCalls++;
    }
    const undone = mine.filter((e) => e.type === 'stepCompensated').map((e) => e.step);
    if (JSON.stringify(undone) !== JSON.stringify(kind === 'ok' ? [] : ['configureNetworking', 'createResources'])) f.compensationOrder++;
  }
  return { findings: f, log, callList };
}

export const ZERO: SagaCrashFindings = { badEnding: 0, duplicateCompletions: 0, doubleCompensations: 0, compensationOrder: 0, rerunAfterCompletion: 0, unrecordedRuns: 0, extraCompensationCalls: 0, unfinished: 0 };
