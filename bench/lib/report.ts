/** Renders one run's results as the markdown of bench/RESULTS.md (and the console summary). */
import { CONTENDERS, CONTENDER_LABELS, type Workload } from '../workloads/workload';
import type { Cell, Results } from './results';
import { CLOCK, FIRST_CALLS, SETTLE_MS, TIMED_RUNS } from './measure';
import { fmt, fmtRatio } from './stats';
import type { TargetOutcome } from './targets';

/** Everything a report needs besides the results. */
export interface RunInfo {
  readonly date: string;
  readonly rounds: number;
  readonly elapsedS: number;
  readonly machine: Readonly<Record<string, string>>;
  readonly libraries: Readonly<Record<string, string>>;
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly worker: string;
  readonly git: string;
  readonly budgetMs: number;
  readonly logDeadlineMs: number;
}

/** The contender keys of a workload, in table order (base contenders first, then variants). */
export const contenderKeys = (w: Workload): string[] => [
  ...CONTENDERS.filter((c) => c in w.contenders),
  ...Object.keys(w.contenders).filter((c) => !(CONTENDERS as readonly string[]).includes(c)),
];

const label = (key: string): string => CONTENDER_LABELS[key] ?? key;

/** The headline text of a cell: its median, or why there is none. */
function cellText(cell: Cell, unit: string): string {
  if (cell.unavailable !== undefined) return `not available yet: ${cell.unavailable}`;
  if (cell.failed !== undefined) return `FAILED: ${cell.failed}`;
  if (cell.timedOut !== undefined) {
    const t = cell.timedOut;
    return `> ${fmt(t.elapsedMs / 1000, 0)} s: stopped at ${fmt(t.done, 0)} of ${fmt(t.total, 0)}`;
  }
  if (cell.values.length === 0) return 'not run';
  return unit === '' ? fmt(cell.median) : `${fmt(cell.median)} ${unit}`;
}

function workloadTable(w: Workload, results: Results): string[] {
  const plain = results.median(w.id, 'plain');
  const extraHeads = (w.columns ?? []).map((c) => c.label);
  const head = ['Contender', `Median (${w.unit})`, 'vs plain loop', ...extraHeads, 'Ops timed', 'Rounds (min – max)'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const key of contenderKeys(w)) {
    const cell = results.cell(w.id, key);
    const m = cell.median;
    const ok = Number.isFinite(m);
    const row = [
      label(key),
      cellText(cell, ''),
      ok ? fmtRatio(m / plain) : '',
      ...(w.columns ?? []).map((c) => (ok ? fmt(cell.extra(c.key), c.digits ?? 2) : '')),
      ok ? fmt(cell.extra('ops'), 0) : '',
      ok ? `${cell.values.length} (${fmt(Math.min(...cell.values))} – ${fmt(Math.max(...cell.values))})` : '',
    ];
    lines.push(`| ${row.join(' | ')} |`);
  }
  // Warm-up rows: the first FIRST_CALLS operations on a fresh store in a fresh process, before any warm-up.
  // Fresh-session rows: a timed run's count of operations on a store built right before the clock, after warm-up.
  for (const [extra, what, opsOf] of [
    ['firstNs', `first ${fmt(FIRST_CALLS, 0)} calls (cold)`, (_: Cell) => FIRST_CALLS],
    ['freshNs', 'fresh session', (cell: Cell) => cell.extra('ops')],
  ] as const) {
    const plainExtra = results.cell(w.id, 'plain').extra(extra);
    for (const key of contenderKeys(w)) {
      const cell = results.cell(w.id, key);
      const v = cell.extra(extra);
      if (!Number.isFinite(cell.median) || !Number.isFinite(v)) continue;
      const vs = cell.extras[extra] ?? [];
      const row = [
        `${label(key)}: ${what}`,
        fmt(v),
        fmtRatio(v / plainExtra),
        ...(w.columns ?? []).map(() => ''),
        fmt(opsOf(cell), 0),
        `${vs.length} (${fmt(Math.min(...vs))} – ${fmt(Math.max(...vs))}); ${fmtRatio(v / cell.median)} steady`,
      ];
      lines.push(`| ${row.join(' | ')} |`);
    }
  }
  return lines;
}

/** The summary table: one row per workload, one column per contender, `median (ratio)`. */
function summaryTable(workloads: readonly Workload[], results: Results): string[] {
  const head = ['Workload', 'Unit', ...CONTENDERS.map(label)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const w of workloads) {
    const plain = results.median(w.id, 'plain');
    const cells = CONTENDERS.map((key) => {
      if (!(key in w.contenders)) return '';
      const cell = results.cell(w.id, key);
      const m = cell.median;
      if (!Number.isFinite(m)) return cell.unavailable !== undefined ? 'n/a' : cell.failed !== undefined ? 'FAILED' : cell.timedOut ? 'timed out' : '';
      return key === 'plain' ? fmt(m) : `${fmt(m)} (${fmtRatio(m / plain)})`;
    });
    lines.push(`| ${w.number}. ${w.title.split(':')[0]} | ${w.unit} | ${cells.join(' | ')} |`);
    const plainFirst = results.cell(w.id, 'plain').extra('firstNs');
    const firsts = CONTENDERS.map((key) => {
      const first = key in w.contenders ? results.cell(w.id, key).extra('firstNs') : Number.NaN;
      if (!Number.isFinite(first)) return '';
      return key === 'plain' ? fmt(first) : `${fmt(first)} (${fmtRatio(first / plainFirst)})`;
    });
    if (firsts.some((c) => c !== '')) {
      lines.push(`| ${w.number}. first ${fmt(FIRST_CALLS, 0)} calls, cold | ${w.unit} | ${firsts.join(' | ')} |`);
    }
    const plainFresh = results.cell(w.id, 'plain').extra('freshNs');
    const freshes = CONTENDERS.map((key) => {
      const fresh = key in w.contenders ? results.cell(w.id, key).extra('freshNs') : Number.NaN;
      if (!Number.isFinite(fresh)) return '';
      return key === 'plain' ? fmt(fresh) : `${fmt(fresh)} (${fmtRatio(fresh / plainFresh)})`;
    });
    if (freshes.some((c) => c !== '')) lines.push(`| ${w.number}. fresh session | ${w.unit} | ${freshes.join(' | ')} |`);
  }
  return lines;
}

/** The whole RESULTS.md. */
export function renderReport(workloads: readonly Workload[], results: Results, targets: readonly TargetOutcome[], info: RunInfo): string {
  const out: string[] = [];
  out.push('# rxslice benchmark results', '');
  out.push(
    `Generated by \`npm run bench\` on ${info.date}: ${info.rounds} rounds, each measurement in a fresh child process`,
    `with \`NODE_ENV=production\` (so RTK's configureStore adds no immutability/serializability middleware, Redux`,
    `and immer skip their dev checks, Elf runs in prod mode and rxslice skips dev validation, except where a`,
    `workload says otherwise), loading only its workload's bundle; contenders interleaved within each round.`,
    `Steady-state numbers come after warm-up; rows marked "first ${fmt(FIRST_CALLS, 0)} calls, cold" time those calls on a fresh`,
    `store before any warm-up. Numbers are medians over the rounds; ratios are against the plain-JavaScript`,
    `loop (the floor) of the same run. See bench/README.md.`,
    '',
  );
  out.push('## Machine', '');
  for (const [k, v] of Object.entries(info.machine)) out.push(`- ${k}: ${v}`);
  out.push(`- Load average (1/5/15 min) before: ${info.loadBefore}; after: ${info.loadAfter}`);
  out.push(`- Libraries: ${Object.entries(info.libraries).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  out.push(`- Commit: ${info.git}`);
  out.push(`- Worker: ${info.worker}`);
  out.push(
    `- Per measurement: for workloads 1, 2, 3, 6 and 7m first the cold ${fmt(FIRST_CALLS, 0)} calls; warm-up (at least 3 runs and 0.4 s, at most 1.5 s; the last warm-up store stays alive, see bench/README.md), then ${TIMED_RUNS} timed runs (median; 3 for the other workloads), each on a fresh store after \`gc()\` and a ${SETTLE_MS} ms pause, sharing a budget of ${fmt(info.budgetMs, 0)} ms (a contender too slow for the issue's count in that time runs fewer operations: see "Ops timed"); overheads (5, 10f): alternating pairs; log and replay workloads: one timed run of the full count, log deadline ${fmt(info.logDeadlineMs, 0)} ms; clock: ${CLOCK === 'cpu' ? 'CPU time of the worker process (BENCH_CLOCK=cpu)' : 'wall time'}`,
  );
  out.push(`- Whole run: ${fmt(info.elapsedS, 0)} s`, '');
  out.push('## Summary (median, and ratio to the plain loop)', '', ...summaryTable(workloads, results), '');
  out.push('## Targets (rxslice)', '', '| Workload | Target | Status | Measured |', '|---|---|---|---|');
  for (const t of targets) out.push(`| ${t.workload} | ${t.target} | ${t.status} | ${t.detail} |`);
  out.push('');
  out.push('## Workloads', '');
  for (const w of workloads) {
    out.push(`### ${w.number}. ${w.title}`, '');
    out.push(...workloadTable(w, results), '');
    for (const note of w.notes ?? []) out.push(`- ${note}`);
    if ((w.notes ?? []).length > 0) out.push('');
  }
  return out.join('\n');
}
