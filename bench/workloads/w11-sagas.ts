/**
 * Workload 11 — sagas: (11) saga steps per second: 3-step sagas whose steps answer synchronously
 * (`of(result)`), run one after another with `session.runSaga` on memory storage; every step
 * dispatches `stepStarted` and `stepSucceeded` and updates the `rxslice/sagas` progress slice;
 * the same on jsonl storage with `fsync: 'never'` and `'always'`.
 * (11r) recovery: 1,000 unfinished sagas (step 1 done, step 2 in flight) restored from a snapshot
 * into a new session and resumed with `resumeSagas()` until all completed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER, of } from 'rxjs';
import { z } from 'zod';
import { createSession, defineSaga, step, type Snapshot } from '../../src/index';
import { jsonl, type JsonlFsync } from '../../src/jsonl/index';
import { checkEqual, measure, nowMs, type Impl, type RunResult } from '../lib/measure';
import type { Workload } from './workload';

/** Saga steps in the timed run of workload 11 (3 per saga). */
export const SAGA_STEPS = 60_000;
/** Saga steps per timed run on jsonl storage: fewer with `fsync: 'always'` (an fdatasync per event). */
export const DURABLE_SAGA_STEPS: Readonly<Record<JsonlFsync, number>> = { never: 30_000, batch: 30_000, always: 600 };
/** Unfinished sagas resumed in one run of workload 11r. */
export const RECOVERED_SAGAS = 1_000;

const Input = z.object({ n: z.number() });
interface Deps {
  hang: boolean;
}
const Saga = defineSaga('bench', {
  input: Input,
  steps: [
    step('reserve', { run: (input: { n: number }) => of({ id: input.n }), compensate: () => of(undefined) }),
    step('charge', { run: (input: { n: number }, ctx) => ((ctx.deps as Deps).hang ? NEVER : of({ charged: input.n })), compensate: () => of(undefined) }),
    step('ship', { run: (input: { n: number }) => of({ shipped: input.n }) }),
  ],
});

/** The floor: the same three steps as plain function calls, results kept in a per-saga record. */
function plainRun(ops: number): RunResult {
  const t0 = nowMs();
  let done = 0;
  for (let n = 0; n < ops / 3; n++) {
    const results: Record<string, unknown> = {};
    results['reserve'] = { id: n };
    results['charge'] = { charged: n };
    results['ship'] = { shipped: n };
    if (results['ship'] !== undefined) done++;
  }
  const ms = nowMs() - t0;
  checkEqual(done, ops / 3, 'sagas completed');
  return { ms };
}

function rxsliceRun(ops: number): RunResult {
  const session = createSession({ slices: [], sagas: [Saga], dependencies: { hang: false }, freeze: false });
  let done = 0;
  const t0 = nowMs();
  for (let n = 0; n < ops / 3; n++) session.runSaga(Saga, { n }, { sagaId: `s${n}` }).subscribe(() => done++);
  const ms = nowMs() - t0;
  checkEqual(done, ops / 3, 'sagas completed');
  checkEqual(session.read('rxslice/sagas').length, 0, 'unfinished sagas');
  return { ms, store: session };
}

/** The same run on `jsonl({ dir, fsync })`: open a fresh directory, run, `dispose()` (its last flush) inside the timing. */
function durableRun(fsync: JsonlFsync, ops: number): RunResult {
  const dir = mkdtempSync(join(tmpdir(), 'rxslice-bench-saga-'));
  try {
    const t0 = nowMs();
    const session = createSession({ slices: [], sagas: [Saga], dependencies: { hang: false }, freeze: false, storage: jsonl({ dir, fsync }) });
    let done = 0;
    for (let n = 0; n < ops / 3; n++) session.runSaga(Saga, { n }, { sagaId: `s${n}` }).subscribe(() => done++);
    const unfinished = session.read('rxslice/sagas').length;
    session.dispose();
    const ms = nowMs() - t0;
    checkEqual(done, ops / 3, 'sagas completed');
    checkEqual(unfinished, 0, 'unfinished sagas');
    return { ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A snapshot holding `count` unfinished sagas (reserve done, charge in flight). */
function crashedSnapshot(count: number): Snapshot {
  const session = createSession({ slices: [], sagas: [Saga], dependencies: { hang: true }, freeze: false });
  for (let n = 0; n < count; n++) session.runSaga(Saga, { n }, { sagaId: `s${n}` }).subscribe();
  const snapshot = session.snapshot();
  session.dispose();
  return snapshot;
}

const snapshots = new Map<number, Snapshot>();

function recoveryRun(ops: number): RunResult {
  const snapshot = snapshots.get(ops) ?? crashedSnapshot(ops);
  snapshots.set(ops, snapshot);
  const t0 = nowMs();
  const session = createSession({ slices: [], sagas: [Saga], dependencies: { hang: false }, freeze: false });
  session.restore(snapshot);
  let done = 0;
  for (const resumed of session.resumeSagas()) resumed.result$.subscribe(() => done++);
  const ms = nowMs() - t0;
  checkEqual(done, ops, 'sagas resumed and completed');
  checkEqual(session.read('rxslice/sagas').length, 0, 'unfinished sagas');
  return { ms, store: session };
}

/** The floor of recovery: walk 1,000 progress records and run each one's remaining steps as calls. */
function plainRecoveryRun(ops: number): RunResult {
  const progress = Array.from({ length: ops }, (_, n) => ({ n, completed: [{ step: 'reserve', result: { id: n } }] }));
  const t0 = nowMs();
  let done = 0;
  for (const p of progress) {
    const results: Record<string, unknown> = Object.fromEntries(p.completed.map((c) => [c.step, c.result]));
    if (results['charge'] === undefined) results['charge'] = { charged: p.n };
    results['ship'] = { shipped: p.n };
    done++;
  }
  const ms = nowMs() - t0;
  checkEqual(done, ops, 'sagas resumed');
  return { ms };
}

const impl = (run: (ops: number) => RunResult, ops: number, unit = 1): Impl => () => measure({ ops, unit, warmupOps: Math.max(unit, ops / 10) }, run);

export const sagaWorkload: Workload = {
  id: 'saga',
  number: '11',
  title: "Saga steps: 3-step sagas with synchronous steps (60,000 on memory storage, 30,000 on jsonl fsync 'never', 600 on jsonl fsync 'always')",
  unit: 'ns/step',
  notes: [
    "rxslice: `session.runSaga` per saga, one after another; each step dispatches `rxslice.saga.stepStarted` and `stepSucceeded` (plus `started` and `completed` per saga) and updates the `rxslice/sagas` progress slice. Plain loop: the three steps as function calls. No peer store has sagas, so the ratio is against the bare calls and mostly shows the cost of the saga log (5 library events and 4 progress-slice replacements per 3-step saga, a few Observables per step). The durable rows run the same sagas on `jsonl({ dir, fsync })` from open to `dispose()`: every saga event is one CRC32 commit record (with `'always'`, one fdatasync per event, so that row is bound by the disk).",
  ],
  contenders: {
    plain: impl(plainRun, SAGA_STEPS, 3),
    rxslice: impl(rxsliceRun, SAGA_STEPS, 3),
    'rxslice-never': impl((ops) => durableRun('never', ops), DURABLE_SAGA_STEPS.never, 3),
    'rxslice-always': impl((ops) => durableRun('always', ops), DURABLE_SAGA_STEPS.always, 3),
  },
};

export const sagaRecoveryWorkload: Workload = {
  id: 'saga-recovery',
  number: '11r',
  title: 'Saga recovery: restore 1,000 unfinished sagas into a new session and resume them to completion',
  unit: 'ns/saga',
  notes: ['Per saga resumed (× 1,000 = the recovery time of 1,000 sagas): new session, `restore(snapshot)`, `resumeSagas()`; the in-flight step runs again and the last one runs, synchronously.'],
  contenders: { plain: impl(plainRecoveryRun, RECOVERED_SAGAS), rxslice: impl(recoveryRun, RECOVERED_SAGAS) },
};
