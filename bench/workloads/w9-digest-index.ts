/**
 * Workload 9 — digest index: the seed's workspace-digest index (examples/workspace-digest).
 * N workspace snapshots are appended to a log slice, and after each append the index
 * (digest -> first snapshot with that digest) is asked for one digest. The seed measured a
 * computed slice that rebuilds the index on every append at 0.65 s / 1.2 s / 4.7 s for
 * N = 5k / 10k / 20k (quadratic). Contenders: the plain loop (a mutable Map updated in place:
 * the floor), rxslice with `defineComputed.incremental` (folds each new snapshot once) and
 * rxslice with a plain `defineComputed` (rebuilds from every snapshot). Reports the time of
 * the N = 20k run (ms) and, as columns, the N = 5k and 10k runs and the growth from 10k to
 * 20k (2 = linear, 4 = quadratic).
 */
import { createSession } from '../../src/index';
import {
  DigestIndexFromScratch,
  DigestIndexOf,
  WorkspaceSnapshots,
  WorkspaceSnapshotted,
  type WorkspaceSnapshot,
} from '../../examples/workspace-digest/digest-index';
import { checkEqual, nowMs, type Impl, type Measurement } from '../lib/measure';
import { DeadlineExceededError } from '../lib/measure';
import type { Workload } from './workload';

/** The appended counts of the three timed runs. */
export const SIZES = [5_000, 10_000, 20_000] as const;

/** Snapshot `step` (one digest in four repeats an earlier one) and the digest looked up after it. */
const snapshotAt = (step: number): WorkspaceSnapshot => ({ digest: `sha256:${(step % 4 === 3 ? step >> 1 : step).toString(16)}`, step, files: 100 + (step % 50) });
const lookupAt = (step: number): string => `sha256:${(step >> 1).toString(16)}`;

/** What a contender exposes: append one snapshot, look one digest up. */
interface Indexed {
  append(snapshot: WorkspaceSnapshot): void;
  lookup(digest: string): WorkspaceSnapshot | undefined;
}

/**
 * The from-scratch row stops (reported as "stopped at k of 20,000") once its measurement has
 * taken this long (ms), well inside the runner's 180 s per worker. Default 150 s.
 */
export const DIGEST_DEADLINE_MS = Number(process.env['BENCH_DIGEST_DEADLINE_MS'] ?? 150_000);

/** Runs `n` appends with a lookup after each; checks the found steps against a plain model. */
function run(make: () => Indexed, n: number, deadline = Number.POSITIVE_INFINITY, started = 0): number {
  const store = make();
  const snapshots = Array.from({ length: n }, (_, i) => snapshotAt(i));
  let foundSteps = 0;
  const t0 = nowMs();
  for (let i = 0; i < n; i++) {
    store.append(snapshots[i] as WorkspaceSnapshot);
    foundSteps += store.lookup(lookupAt(i))?.step ?? -1;
    if ((i & 255) === 255 && nowMs() > deadline) throw new DeadlineExceededError(i + 1, n, nowMs() - started);
  }
  const ms = nowMs() - t0;
  checkEqual(foundSteps, expectedSum(n), `sum of the steps found by ${n} lookups`);
  return ms;
}

/** The same lookups against a model built once. */
function expectedSum(n: number): number {
  const firsts = new Map<string, number>();
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const s = snapshotAt(i);
    if (!firsts.has(s.digest)) firsts.set(s.digest, s.step);
    sum += firsts.get(lookupAt(i)) ?? -1;
  }
  return sum;
}

/**
 * Warms up (runs of 2,000 until at least 3 runs and 0.4 s), then times each size `timedRuns`
 * times (garbage collected before each) and keeps the median per size.
 */
function measureSizes(make: () => Indexed, timedRuns: number, deadlineMs: number): Measurement {
  const warmStart = nowMs();
  const deadline = warmStart + deadlineMs;
  for (let k = 0; k < 3 || nowMs() - warmStart < 400; k++) run(make, 2_000);
  const median = (n: number): number => {
    const times: number[] = [];
    for (let k = 0; k < timedRuns; k++) {
      (globalThis as { gc?: () => void }).gc?.();
      times.push(run(make, n, deadline, warmStart));
    }
    times.sort((x, y) => x - y);
    return times[(times.length - 1) >> 1] as number;
  };
  const [ms5k, ms10k, ms20k] = SIZES.map(median) as [number, number, number];
  return { value: ms20k, extra: { ms5k, ms10k, growth: ms20k / ms10k, ops: SIZES[2] } };
}

function plain(): Indexed {
  const firsts = new Map<string, WorkspaceSnapshot>();
  return {
    append(snapshot) {
      if (!firsts.has(snapshot.digest)) firsts.set(snapshot.digest, snapshot);
    },
    lookup: (digest) => firsts.get(digest),
  };
}

function rxslice(def: typeof DigestIndexOf): () => Indexed {
  return () => {
    const session = createSession({ slices: [WorkspaceSnapshots] });
    const index = session.computed(def);
    return {
      append: (snapshot) => void session.dispatch(WorkspaceSnapshotted(snapshot)),
      lookup: (digest) => index.latest().get(digest),
    };
  };
}

const impl = (make: () => Indexed, timedRuns = 5, deadlineMs = Number.POSITIVE_INFINITY): Impl => () => measureSizes(make, timedRuns, deadlineMs);

export const digestIndexWorkload: Workload = {
  id: 'digest-index',
  number: '9',
  title: 'digest index: N workspace snapshots appended to a log, an index lookup after each (N = 5k, 10k, 20k)',
  unit: 'ms for 20k',
  contenders: {
    plain: impl(plain),
    rxslice: impl(rxslice(DigestIndexOf)),
    // Quadratic: 1.5 min or more for one run of each size, so one timed run per size, and a deadline.
    'rxslice-from-scratch': impl(rxslice(DigestIndexFromScratch as unknown as typeof DigestIndexOf), 1, DIGEST_DEADLINE_MS),
  },
  maxRounds: 1,
  columns: [
    { key: 'ms5k', label: 'ms for 5k', digits: 1 },
    { key: 'ms10k', label: 'ms for 10k', digits: 1 },
    { key: 'growth', label: '20k / 10k (2 = linear)', digits: 2 },
  ],
  notes: [
    'rxslice is `defineComputed.incremental` (each append folds one snapshot into the index); rxslice (from scratch) is a plain `defineComputed` that rebuilds the index from every snapshot on each append, as the seed measured (0.65 s / 1.2 s / 4.7 s).',
    'The other stores have no incremental derived state; a selector over their log rebuilds like the from-scratch row.',
    'One round (the from-scratch row takes 1.5 min or more, and stops at `BENCH_DIGEST_DEADLINE_MS`, default 150 s); each size is the median of 5 timed runs (1 for the from-scratch row).',
  ],
};
