/**
 * The targets for rxslice, evaluated on the medians of one run. Ratio targets are
 * upper bounds; "by how much" is the actual value against the limit.
 */
import type { Results } from './results';
import { fmt, fmtRatio } from './stats';

/** One target's outcome. */
export interface TargetOutcome {
  readonly workload: string;
  readonly target: string;
  readonly status: 'met' | 'missed' | 'not measured';
  readonly detail: string;
}

/** Describes `actual` against an upper bound `limit`: how far under or over it is. */
function against(actual: number, limit: number, show: (v: number) => string): { status: 'met' | 'missed'; detail: string } {
  const factor = actual / limit;
  if (actual <= limit) {
    return { status: 'met', detail: `${show(actual)} (limit ${show(limit)}; ${((1 - factor) * 100).toFixed(0)}% under)` };
  }
  const over = factor >= 2 ? `${factor.toFixed(1)}× the limit` : `${((factor - 1) * 100).toFixed(0)}% over`;
  return { status: 'missed', detail: `${show(actual)} (limit ${show(limit)}; ${over})` };
}

/** Evaluates every target; a target whose inputs are missing is "not measured" with the reason. */
export function evaluateTargets(results: Results): TargetOutcome[] {
  const out: TargetOutcome[] = [];
  const ratioTarget = (workload: string, target: string, num: [string, string], den: [string, string], limit: number): void => {
    const a = results.median(...num);
    const b = results.median(...den);
    if (!Number.isFinite(a) || !Number.isFinite(b)) {
      const missing = !Number.isFinite(a) ? num : den;
      const cell = results.cell(...missing);
      const why = cell.unavailable ?? cell.failed ?? (cell.timedOut ? 'timed out' : 'no value');
      out.push({ workload, target, status: 'not measured', detail: `${missing.join('/')}: ${why}` });
      return;
    }
    out.push({ workload, target, ...against(a / b, limit, fmtRatio) });
  };

  ratioTarget('1', 'rxslice at or below the plain loop', ['dispatch', 'rxslice'], ['dispatch', 'plain'], 1);
  ratioTarget('2', 'rxslice within 1.2× of raw RxJS', ['fan-out', 'rxslice'], ['fan-out', 'rxjs'], 1.2);

  const diamond = results.cell('diamond', 'rxslice');
  if (diamond.values.length > 0) {
    const fires = diamond.extra('firesPerUpdate');
    out.push({
      workload: '3',
      target: 'rxslice glitch-free (C fires once per update)',
      status: fires === 1 ? 'met' : 'missed',
      detail: `${fmt(fires, 2)} calls per update`,
    });
  } else {
    out.push({ workload: '3', target: 'rxslice glitch-free (C fires once per update)', status: 'not measured', detail: diamond.unavailable ?? diamond.failed ?? 'no value' });
  }
  ratioTarget('3', 'rxslice within 1.5× of the plain loop', ['diamond', 'rxslice'], ['diamond', 'plain'], 1.5);

  const log = results.cell('log-unbounded', 'rxslice');
  if (log.values.length > 0) {
    out.push({ workload: '4u', target: 'rxslice: 200,000 unbounded appends in under 250 ms', ...against(log.median, 250, (v) => `${fmt(v)} ms`) });
    out.push({ workload: '4u', target: 'rxslice: last-10% / first-10% cost under 1.5', ...against(log.extra('lastToFirst'), 1.5, fmtRatio) });
  } else {
    const why = log.unavailable ?? log.failed ?? (log.timedOut ? 'timed out' : 'no value');
    out.push({ workload: '4u', target: 'rxslice: 200,000 unbounded appends in under 250 ms', status: 'not measured', detail: why });
  }

  // Issue 16 asks three middlewares ≤ 1.15× plain dispatch, offering a once-per-event kind: the event middleware.
  for (const [key, kind, limit] of [['rxslice', 'reducer', 1.3], ['rxslice-operator', 'operator', 1.3], ['rxslice-event', 'event', 1.15]] as const) {
    const cell = results.cell('middleware', key);
    const target = `rxslice ${kind}-middleware overhead under ${limit}×`;
    if (Number.isFinite(cell.median)) out.push({ workload: '5', target, ...against(cell.extra('overhead'), limit, fmtRatio) });
    else out.push({ workload: '5', target, status: 'not measured', detail: cell.unavailable ?? cell.failed ?? 'no value' });
  }
  ratioTarget('6', 'rxslice within 1.5× of the plain loop', ['effect', 'rxslice'], ['effect', 'plain'], 1.5);
  ratioTarget('7m', 'rxslice in-memory snapshot+restore within 2× of the plain loop', ['snapshot', 'rxslice'], ['snapshot', 'plain'], 2);
  ratioTarget('7j', 'rxslice JSON round trip within 2× of the plain loop', ['snapshot-json', 'rxslice'], ['snapshot-json', 'plain'], 2);
  ratioTarget('10s', 'rxslice atomic ~100 KB snapshot within 2× of a bare write + rename', ['snapshot-file', 'rxslice'], ['snapshot-file', 'plain'], 2);
  const recorder = results.cell('recorder', 'rxslice');
  const recorderTarget = "flight recorder ('never' fsync) overhead at most 1.2×";
  if (Number.isFinite(recorder.median)) out.push({ workload: '10f', target: recorderTarget, ...against(recorder.extra('overhead'), 1.2, fmtRatio) });
  else out.push({ workload: '10f', target: recorderTarget, status: 'not measured', detail: recorder.unavailable ?? recorder.failed ?? 'no value' });
  ratioTarget('10a', "jsonl fsync 'never' at ≥ 0.7× the records/s of a plain writeSync loop of the same bytes", ['journal-append', 'rxslice'], ['journal-append', 'plain'], 1 / 0.7);
  ratioTarget('10a', "jsonl fsync 'always' at ≥ 0.8× the records/s of a writeSync + fdatasync loop", ['journal-append', 'rxslice-always'], ['journal-append', 'plain-fsync'], 1 / 0.8);
  const recover = results.cell('journal-recover', 'rxslice');
  const recoverTarget = 'jsonl open + recover of 1,000,000 records under 2 s';
  if (Number.isFinite(recover.median)) out.push({ workload: '10o', target: recoverTarget, ...against(recover.median, 2000, (v) => `${fmt(v)} ms`) });
  else out.push({ workload: '10o', target: recoverTarget, status: 'not measured', detail: recover.unavailable ?? recover.failed ?? 'no value' });
  // Issue 16's goals against the peers (the fastest one where the goal says so), in the same run.
  const peerTarget = (workload: string, id: string, target: string, peers: readonly string[], limit: number): void => {
    const a = results.median(id, 'rxslice');
    const measured = peers.map((peer) => [peer, results.median(id, peer)] as const).filter(([, v]) => Number.isFinite(v));
    if (!Number.isFinite(a) || measured.length === 0) {
      const cell = results.cell(id, Number.isFinite(a) ? (peers[0] as string) : 'rxslice');
      out.push({ workload, target, status: 'not measured', detail: cell.unavailable ?? cell.failed ?? (cell.timedOut ? 'timed out' : 'no value') });
      return;
    }
    const [peer, best] = measured.reduce((x, y) => (y[1] < x[1] ? y : x));
    const outcome = against(a / best, limit, fmtRatio);
    out.push({ workload, target, status: outcome.status, detail: `${outcome.detail}; peer: ${peer}` });
  };
  peerTarget('1', 'dispatch', 'issue 16: dispatch at or below the fastest of Elf and raw RxJS', ['elf', 'rxjs'], 1);
  peerTarget('3', 'diamond', "issue 16: glitch-free diamond at or below Zustand's update of one object", ['zustand'], 1);
  peerTarget('6', 'effect', "issue 16: effect round trip within 1.5× of the fastest peer's", ['rxjs', 'redux', 'rtk', 'elf', 'zustand'], 1.5);
  peerTarget('7m', 'snapshot', "issue 16: snapshot + restore within 2× of Redux's root swap", ['redux'], 2);
  const replay = results.cell('replay', 'rxslice');
  const replayTarget = 'issue 16: transcript replay, validation on, at ≥ 250,000 events/s (≤ 4,000 ns/event)';
  if (Number.isFinite(replay.median)) out.push({ workload: '8', target: replayTarget, ...against(replay.median, 4000, (v) => `${fmt(v)} ns/event`) });
  else out.push({ workload: '8', target: replayTarget, status: 'not measured', detail: replay.unavailable ?? replay.failed ?? 'no value' });
  ratioTarget('16m', 'rxslice bytes per item of a 1M-item log within 1.2× a plain array of the same frozen items', ['memory', 'rxslice'], ['memory', 'plain'], 1.2);
  return out;
}
