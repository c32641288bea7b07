/**
 * The targets for rxslice, evaluated on the medians of one run. Ratio targets are
 * upper bounds; "by how much" is the actual value against the limit.
 */
import type { Results } from './results';
import { fmt, fmtRatio } from './stats';
import { CONTENDER_LABELS } from '../workloads/workload';

/** One target's outcome. */
export interface TargetOutcome {
  readonly workload: string;
  readonly target: string;
  readonly status: 'met' | 'missed' | 'not measured';
  readonly detail: string;
}

/** Describes `actual` against an upper bound `limit`: how far under or over it is. */
function against(actual: number, limit: number, show: (v: number) => string): { status: 'met' | 'missed'; detail: string } {
  if (limit === 0) return actual === 0 ? { status: 'met', detail: show(actual) } : { status: 'missed', detail: `${show(actual)} (limit ${show(limit)})` };
  const factor = actual / limit;
  if (actual <= limit) {
    return { status: 'met', detail: `${show(actual)} (limit ${show(limit)}; ${((1 - factor) * 100).toFixed(0)}% under)` };
  }
  const over = factor >= 2 ? `${factor.toFixed(1)}× the limit` : `${((factor - 1) * 100).toFixed(0)}% over`;
  return { status: 'missed', detail: `${show(actual)} (limit ${show(limit)}; ${over})` };
}

/** Why a cell has no value: its unavailable reason, failure, timeout, or "no value". */
const whyMissing = (results: Results, workload: string, contender: string): string => {
  const cell = results.cell(workload, contender);
  const why = cell.unavailable ?? cell.failed ?? (cell.timedOut ? 'timed out' : cell.values.length === 0 ? 'not run' : 'no value');
  return `${workload}/${contender}: ${why}`;
};

/**
 * Evaluates every target; a target whose inputs are missing is "not measured" with the reason.
 * Issue 22's goals come first (medians of this run, ratios to peers of this run), then the
 * earlier issues' targets that issue 22 did not replace (the log, JSON snapshots, atomic
 * snapshot files, fsync 'always'). A cell whose check failed has no median, so a fast wrong
 * answer never meets a target.
 */
export function evaluateTargets(results: Results): TargetOutcome[] {
  const out: TargetOutcome[] = [];
  const value = (workload: string, contender: string, extra?: string): number => {
    const cell = results.cell(workload, contender);
    if (!Number.isFinite(cell.median)) return Number.NaN;
    return extra === undefined ? cell.median : cell.extra(extra);
  };
  /** `num / den` against `limit`; `also` adds the ratio to other cells to the detail (fair extra rows). */
  const ratio = (
    workload: string,
    target: string,
    num: [string, string, string?],
    den: [string, string, string?],
    limit: number,
    also: readonly [string, string][] = [],
    prototype?: [string, string],
  ): void => {
    const a = value(...num);
    const b = value(...den);
    if (!Number.isFinite(a) || !Number.isFinite(b)) {
      const missing = !Number.isFinite(a) ? num : den;
      out.push({ workload, target, status: 'not measured', detail: whyMissing(results, missing[0], missing[1]) });
      return;
    }
    const extra = also
      .map(([w, c]) => [c, value(w, c)] as const)
      .filter(([, v]) => Number.isFinite(v))
      .map(([c, v]) => `; ${fmtRatio(a / v)} ${c}`)
      .join('');
    // The prototype of the alternative (same denominator): what the goal reads without the cost it removes.
    const p = prototype === undefined ? Number.NaN : value(...prototype);
    const proto = Number.isFinite(p) ? `; prototype ${CONTENDER_LABELS[prototype?.[1] ?? ''] ?? prototype?.[1]}: ${fmtRatio(p / b)}` : '';
    const outcome = against(a / b, limit, fmtRatio);
    out.push({ workload, target, status: outcome.status, detail: `${outcome.detail}${extra}${proto}` });
  };
  /** An extra number of one cell against an upper bound. */
  const bound = (workload: string, target: string, cell: [string, string, string?], limit: number, show: (v: number) => string): void => {
    const v = value(...cell);
    if (!Number.isFinite(v)) out.push({ workload, target, status: 'not measured', detail: whyMissing(results, cell[0], cell[1]) });
    else out.push({ workload, target, ...against(v, limit, show) });
  };

  // ---- issue 36's goals: fresh sessions --------------------------------------------------------
  for (const [number, id] of [['1', 'dispatch'], ['2', 'fan-out'], ['3', 'diamond'], ['6', 'effect'], ['7m', 'snapshot']] as const) {
    ratio(number, 'issue 36: fresh session ≤ 1.3× the steady row', [id, 'rxslice', 'freshNs'], [id, 'rxslice'], 1.3);
  }
  ratio('7m', "issue 36: fresh session ≤ 1.3× the steady row (issue's shape)", ['snapshot', 'rxslice-arrays', 'freshNs'], ['snapshot', 'rxslice-arrays'], 1.3);
  ratio('7m', "issue 36: snapshot + restore (issue's shape: one 1,000-object array per slice), fresh ≤ 2× Zustand's fresh", ['snapshot', 'rxslice-arrays', 'freshNs'], ['snapshot', 'zustand', 'freshNs'], 2);
  ratio('7m', "issue 36: snapshot + restore (issue's shape), fresh ≤ 6× Redux's fresh", ['snapshot', 'rxslice-arrays', 'freshNs'], ['snapshot', 'redux', 'freshNs'], 6);
  ratio('7m', 'issue 36: snapshot + restore (10 × 1,000 items), fresh ≤ 2× Zustand\'s fresh', ['snapshot', 'rxslice', 'freshNs'], ['snapshot', 'zustand', 'freshNs'], 2);
  ratio('7m', 'issue 36: snapshot + restore (10 × 1,000 items), fresh ≤ 6× Redux\'s fresh', ['snapshot', 'rxslice', 'freshNs'], ['snapshot', 'redux', 'freshNs'], 6);
  ratio('7j', 'issue 36: JSON round trip, no schemas ≤ 1.2× Redux', ['snapshot-json', 'rxslice-noschema'], ['snapshot-json', 'redux'], 1.2);
  ratio('7j', 'issue 36: JSON round trip, zod schema on every item ≤ 2× Redux', ['snapshot-json', 'rxslice'], ['snapshot-json', 'redux'], 2);
  ratio('2', 'issue 36: fan-out ≤ 1.0× raw RxJS, fresh sessions', ['fan-out', 'rxslice', 'freshNs'], ['fan-out', 'rxjs', 'freshNs'], 1);
  ratio('3', 'issue 36: diamond ≤ 1.2× Zustand', ['diamond', 'rxslice'], ['diamond', 'zustand'], 1.2, [['diamond', 'zustand-derived']]);
  ratio('3', 'issue 36: diamond ≤ 1.2× Zustand, fresh sessions', ['diamond', 'rxslice', 'freshNs'], ['diamond', 'zustand', 'freshNs'], 1.2);
  ratio('1', 'issue 36: dispatch ≤ 1.0× Redux', ['dispatch', 'rxslice'], ['dispatch', 'redux'], 1);
  ratio('1', 'issue 36: dispatch ≤ 1.0× Redux, fresh sessions', ['dispatch', 'rxslice', 'freshNs'], ['dispatch', 'redux', 'freshNs'], 1);

  // ---- issue 22's goals ---------------------------------------------------------------------
  ratio('1', 'issue 22: dispatch ≤ 1.0× raw RxJS (same routing)', ['dispatch', 'rxslice'], ['dispatch', 'rxjs'], 1);
  ratio('1', "issue 22: dispatch ≤ 1.7× Elf (its update function; Elf with the same routing also shown)", ['dispatch', 'rxslice'], ['dispatch', 'elf'], 1.7, [
    ['dispatch', 'elf-routed'],
  ], ['dispatch', 'rxslice-noclock']);
  ratio('2', 'issue 22: fan-out to 100 subscribers ≤ 1.0× raw RxJS', ['fan-out', 'rxslice'], ['fan-out', 'rxjs'], 1);
  ratio('3', 'issue 22: glitch-free diamond ≤ Elf', ['diamond', 'rxslice'], ['diamond', 'elf'], 1, [], ['diamond', 'rxslice-noclock']);
  ratio('3', "issue 22: glitch-free diamond ≤ 2.0× Zustand (one selector; Zustand with A, B, C in the state also shown)", ['diamond', 'rxslice'], ['diamond', 'zustand'], 2, [
    ['diamond', 'zustand-derived'],
  ], ['diamond', 'rxslice-noclock']);
  bound('3', "issue 22: C's subscriber fires 1.00 times per update", ['diamond', 'rxslice', 'firesPerUpdate'], 1, (v) => fmt(v, 2));
  bound('3', 'issue 22: 0 inconsistent values of C', ['diamond', 'rxslice', 'inconsistentPerUpdate'], 0, (v) => fmt(v, 2));
  bound('5', 'issue 22: event middleware ≤ 1.10× dispatch', ['middleware', 'rxslice-event', 'overhead'], 1.1, fmtRatio);
  bound('5', 'issue 36: event middleware ≤ 1.10× dispatch, fresh sessions', ['middleware', 'rxslice-event', 'freshOverhead'], 1.1, fmtRatio);
  bound('5', 'issue 22: operator middleware ≤ 1.30× dispatch', ['middleware', 'rxslice-operator', 'overhead'], 1.3, fmtRatio);
  ratio('6', 'issue 22: effect round trip, epic ≤ 2.5× Elf', ['effect', 'rxslice'], ['effect', 'elf'], 2.5);
  ratio('6', 'issue 22: effect round trip, listener-style handler (`listen`) ≤ 1.6× Elf', ['effect', 'rxslice-listener'], ['effect', 'elf'], 1.6, [], ['effect', 'rxslice-listener-noclock']);
  ratio('7m', 'issue 22: snapshot + restore, steady ≤ 6× Redux', ['snapshot', 'rxslice'], ['snapshot', 'redux'], 6, [], ['snapshot', 'rxslice-noclock']);
  ratio('7m', 'issue 22: snapshot + restore, the first 1,000 calls (cold) ≤ 3× steady', ['snapshot', 'rxslice', 'firstNs'], ['snapshot', 'rxslice'], 3);
  {
    // The same ratio for the other contenders of this run: how far any code is from its steady state in its first calls.
    const last = out[out.length - 1] as TargetOutcome;
    const others = ['plain', 'redux', 'zustand']
      .map((c) => [c, value('snapshot', c, 'firstNs') / value('snapshot', c)] as const)
      .filter(([, r]) => Number.isFinite(r))
      .map(([c, r]) => `${CONTENDER_LABELS[c] ?? c} ${fmtRatio(r)}`);
    if (last.status !== 'not measured' && others.length > 0) out[out.length - 1] = { ...last, detail: `${last.detail}; cold / steady of ${others.join(', ')}` };
  }
  bound('8', "issue 22: transcript replay ≥ 250,000 events/s (≤ 4,000 ns/event), validation 'always', statechart installed", ['replay', 'rxslice'], 4000, (v) => `${fmt(v)} ns/event`);
  ratio('16m', 'issue 22: bytes per item of a 1M-item log ≤ 1.10× a plain array of the same frozen items', ['memory', 'rxslice'], ['memory', 'plain'], 1.1);
  ratio('23r', 'issue 23: reading a 10,000-item log by index ≤ 3× a plain frozen array', ['log-read', 'rxslice', 'indexNs'], ['log-read', 'plain', 'indexNs'], 3);
  ratio('23r', 'issue 23: reading a 10,000-item log by iteration (for…of) ≤ 3× a plain frozen array', ['log-read', 'rxslice', 'iterNs'], ['log-read', 'plain', 'iterNs'], 3);
  ratio('10a', "issue 22: JSONL fsync 'never' appends ≤ 1.5× a plain writeSync loop of the same bytes", ['journal-append', 'rxslice'], ['journal-append', 'plain'], 1.5);
  bound('10f', "issue 22: flight recorder (fsync 'never') ≤ 1.2× the unrecorded run", ['recorder', 'rxslice', 'overhead'], 1.2, fmtRatio);
  ratio('10o', 'issue 22: opening 1M records with the default compaction ≤ 0.6× readFileSync + JSON.parse per line', ['journal-recover', 'rxslice-compacted'], ['journal-recover', 'plain'], 0.6);

  // ---- earlier targets issue 22 did not replace ----------------------------------------------
  bound('24w', 'issue 36: `watch --json` catches up at ≥ 40,000 lines/s (≤ 25 µs/line)', ['watch-catch-up', 'rxslice'], 25, (v) => `${fmt(v)} µs/line`);
  bound('24w', 'issue 36: `watch --json --store` catches up at ≥ 10,000 lines/s (≤ 100 µs/line)', ['watch-catch-up', 'rxslice-store'], 100, (v) => `${fmt(v)} µs/line`);
  bound('24d', 'issue 36: a directory of 200 transcripts (~300 MB) shows its first rows within 2 s', ['watch-directory', 'rxslice'], 2000, (v) => `${fmt(v)} ms`);
  bound('4u', 'rxslice: 200,000 unbounded appends in under 250 ms', ['log-unbounded', 'rxslice'], 250, (v) => `${fmt(v)} ms`);
  bound('4u', 'rxslice: last-10% / first-10% cost under 1.5', ['log-unbounded', 'rxslice', 'lastToFirst'], 1.5, fmtRatio);
  ratio('7j', 'rxslice JSON round trip within 2× of the plain loop', ['snapshot-json', 'rxslice'], ['snapshot-json', 'plain'], 2);
  ratio('10s', 'rxslice atomic ~100 KB snapshot within 2× of a bare write + rename', ['snapshot-file', 'rxslice'], ['snapshot-file', 'plain'], 2);
  ratio('10a', "jsonl fsync 'always' at ≥ 0.8× the records/s of a writeSync + fdatasync loop", ['journal-append', 'rxslice-always'], ['journal-append', 'plain-fsync'], 1 / 0.8);
  return out;
}
