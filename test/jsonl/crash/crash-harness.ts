import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSession, createStore, type Store } from '../../../src/index';
import { jsonl, type JsonlFsync } from '../../../src/jsonl/index';
import { scanJournal } from '../../../src/jsonl/journal-format';
import { CRASH_SLICES, Tick } from './crash-slices';
import { onLines } from '../../child-lines';

/** Figures of a crash run. Every count but `loops`, `events`, `tornTails` and `compactions` must be 0. */
export interface CrashStats {
  loops: number;
  /** Events committed in total (the last recovered seq). */
  events: number;
  /** Opens that found (and truncated) a torn last record. */
  tornTails: number;
  /** Loops whose directory held a compacted base. */
  compactions: number;
  /** Damage before the last record (CorruptStorageError under 'tolerate-torn-tail'). */
  midFileCorruption: number;
  /** Records whose seq does not follow the previous one by 1 (every event of this workload writes one). */
  seqGaps: number;
  /** Loops where the recovered seq was below an event the child had seen committed. */
  lostAcked: number;
  /** Loops where the recovered state differed from the in-memory model after the same prefix. */
  stateMismatch: number;
  /** Lock rounds (4 processes) where the number of processes that opened was not exactly 1. */
  lockViolations: number;
  lockRounds: number;
  /** Children that failed for another reason (printed `error`). */
  childErrors: number;
}

/** Bundles a child (`entry`, beside this file) once (esbuild, CommonJS for Node 20) and returns the file to run with `node`. */
export async function bundleChild(entry = 'crash-child.ts'): Promise<string> {
  const { build } = await import('esbuild');
  const out = join(mkdtempSync(join(tmpdir(), 'rxslice-crash-child-')), entry.replace(/\.ts$/, '.cjs'));
  await build({ entryPoints: [join(dirname(fileURLToPath(import.meta.url)), entry)], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: out, logLevel: 'error' });
  return out;
}

interface Child {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<void>;
  /** Resolves with the first line (or '' when the child exits without one). */
  readonly first: Promise<string>;
}

/** Which factory opens the directory: `createSession`, or `createStore` (the same pipeline and storage without the snapshot layer). */
export type CrashFactory = 'session' | 'store';

function start(childFile: string, dir: string, fsync: JsonlFsync, compactBytes: number, factory: CrashFactory): Child {
  const proc = spawn(process.execPath, [childFile, dir, fsync, String(compactBytes), factory], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let resolveFirst!: (line: string) => void;
  const first = new Promise<string>((r) => (resolveFirst = r));
  onLines(proc.stdout, (line) => {
    if (lines.length === 0) resolveFirst(line);
    lines.push(line);
  });
  const exited = new Promise<void>((r) => proc.on('close', () => {
    resolveFirst('');
    r();
  }));
  return { proc, lines, exited, first };
}

const lastAck = (lines: readonly string[]): number => {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^ack (\d+)$/.exec(lines[i] as string);
    if (m !== null) return Number(m[1]);
  }
  return 0;
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs crash loops against one directory and checks every recovery. `factory` is what the killed
 * writers open the directory with; the recovery check opens it with `reopenWith` of the loop
 * (by default the same factory every time), so a store's files are also read by a session and back.
 */
export class CrashRun {
  readonly stats: CrashStats = { loops: 0, events: 0, tornTails: 0, compactions: 0, midFileCorruption: 0, seqGaps: 0, lostAcked: 0, stateMismatch: 0, lockViolations: 0, lockRounds: 0, childErrors: 0 };
  readonly dir = mkdtempSync(join(tmpdir(), 'rxslice-crash-'));
  private readonly model: Store = createSession({ slices: CRASH_SLICES, validation: 'off', freeze: false });
  private acked = 0;

  constructor(
    private readonly childFile: string,
    private readonly compactBytes = 16_384,
    private readonly random: () => number = Math.random,
    private readonly factory: CrashFactory = 'session',
    private readonly reopenWith: (loop: number) => CrashFactory = () => factory,
  ) {}

  private fsyncFor(i: number): JsonlFsync {
    return (['never', 'batch', 'never', 'always'] as const)[i % 4] as JsonlFsync;
  }

  /** One writer: start, wait until it is open, let it run 0–`maxRunMs` ms, SIGKILL, verify. */
  async loop(maxRunMs = 60): Promise<void> {
    const child = start(this.childFile, this.dir, this.fsyncFor(this.stats.loops), this.compactBytes, this.factory);
    const first = await child.first;
    if (!first.startsWith('ready')) this.stats.childErrors++;
    await sleep(this.random() * maxRunMs);
    child.proc.kill('SIGKILL');
    await child.exited;
    this.acked = Math.max(this.acked, lastAck(child.lines));
    this.stats.loops++;
    this.verify();
  }

  /** Four processes compete for the lock: exactly one may open; then it is killed and the directory verified. */
  async lockRound(maxRunMs = 60): Promise<void> {
    const children = [0, 1, 2, 3].map(() => start(this.childFile, this.dir, this.fsyncFor(this.stats.lockRounds), this.compactBytes, this.factory));
    const firsts = await Promise.all(children.map((c) => c.first));
    const ready = firsts.filter((l) => l.startsWith('ready')).length;
    if (ready !== 1) this.stats.lockViolations++;
    this.stats.childErrors += firsts.filter((l) => !l.startsWith('ready') && !l.startsWith('locked')).length;
    await sleep(this.random() * maxRunMs);
    for (const c of children) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    for (const c of children) this.acked = Math.max(this.acked, lastAck(c.lines));
    this.stats.lockRounds++;
    this.verify();
  }

  /** Checks the directory as the killed writer left it, then opens it and compares with the model. */
  verify(): void {
    const files = readdirSync(this.dir);
    const baseSeq = Math.max(0, ...files.map((f) => /^base-(\d+)\.json$/.exec(f)).filter((m) => m !== null).map((m) => Number(m[1])));
    if (baseSeq > 0) this.stats.compactions++;
    let buf: Buffer;
    try {
      buf = readFileSync(join(this.dir, `journal-${baseSeq}.jsonl`));
    } catch {
      buf = Buffer.alloc(0);
    }
    const scan = scanJournal(buf, baseSeq);
    if (scan.bad !== undefined) {
      if (scan.bad.tail) this.stats.tornTails++;
      else this.stats.midFileCorruption++;
    }
    let prev = baseSeq;
    for (const r of scan.records) {
      if (r.seq !== prev + 1) this.stats.seqGaps++;
      prev = r.seq;
    }
    let session: Store;
    const open = this.reopenWith(this.stats.loops + this.stats.lockRounds) === 'store' ? createStore : createSession;
    try {
      session = open({ slices: CRASH_SLICES, storage: jsonl({ dir: this.dir, fsync: 'never' }), validation: 'off' });
    } catch (e) {
      if ((e as { code?: string }).code === 'STORAGE_CORRUPT') this.stats.midFileCorruption++;
      else throw e;
      return;
    }
    try {
      const seq = session.lastSeq;
      if (seq < this.acked) this.stats.lostAcked++;
      if (seq < this.model.lastSeq) this.stats.stateMismatch++;
      for (let n = this.model.lastSeq + 1; n <= seq; n++) this.model.dispatch(Tick({ n }));
      for (const def of CRASH_SLICES) {
        if (JSON.stringify(session.slice(def).all()) !== JSON.stringify(this.model.slice(def).all())) this.stats.stateMismatch++;
      }
      this.stats.events = seq;
    } finally {
      session.dispose();
    }
  }
}
