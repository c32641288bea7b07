/**
 * Budgets of a watched session: tokens, error rate over a window of transcript time, time in
 * one phase. Crossing one dispatches a `watch/budgetExceeded` event into the session (kept in the
 * `watchAlerts` log, so a restarted watch does not raise it again).
 */
import { z } from 'zod';
import { append, defineEvent, defineSlice } from '../index';
import { RxSliceError } from '../internal/errors';
import { TranscriptTime } from '../transcripts/clock';
import { TokenSummary } from '../transcripts/computed';
import { AgentPhases } from '../transcripts/phases';
import { ToolCalls, type ToolCall } from '../transcripts/slices';
import type { WatchSession } from './watch-session';
import { clip } from '../internal/quote';

/** The thresholds (all optional; a missing one is not checked). */
export const Budgets = z
  .object({
    /** Tokens per session (input + output + cache creation + cache read), the context budget. */
    maxTokens: z.number().int().positive().optional(),
    /** Failed / settled tool calls among those settled in the last `windowMs` of transcript time, once at least `minCalls` settled. */
    errorRate: z
      .object({ max: z.number().gt(0).lte(1), windowMs: z.number().int().positive().default(600_000), minCalls: z.number().int().positive().default(5) })
      .strict()
      .optional(),
    /** Time in one visit of one phase of the `agentPhase` statechart (ms of transcript time). */
    maxPhaseMs: z.number().int().positive().optional(),
    /** A shell command run for each alert (the alert as JSON in the environment variable `RXSLICE_ALERT`). */
    command: z.string().min(1).optional(),
    /** A URL each alert is POSTed to as JSON. */
    url: z.string().url().optional(),
  })
  .strict();
export type Budgets = z.infer<typeof Budgets>;

/** An alert: which budget, the session, the value that crossed the limit, and when (transcript time, ms). */
export const BudgetAlert = z.object({
  budget: z.enum(['tokens', 'errorRate', 'phaseTime']),
  value: z.number(),
  limit: z.number(),
  /** The phase, for `phaseTime`; the phase entry time is `sinceMs`. */
  phase: z.string().nullable(),
  sinceMs: z.number().nullable(),
  atMs: z.number().nullable(),
  message: z.string(),
});
export type BudgetAlert = z.infer<typeof BudgetAlert>;

/** A budget was crossed. */
export const BudgetExceeded = /* @__PURE__ */ defineEvent('watch/budgetExceeded', BudgetAlert);

/** The alerts raised in a watched session, in order. */
export const WatchAlerts = /* @__PURE__ */ defineSlice('watchAlerts', {
  policy: 'log',
  schema: BudgetAlert,
  reducers: ({ on }) => [on(BudgetExceeded, (_view, { payload }) => append<BudgetAlert>(payload))],
});

/** Thrown for a budgets file or option that does not fit {@link Budgets}. */
export class InvalidBudgetsError extends RxSliceError {
  override readonly name = 'InvalidBudgetsError';
  constructor(readonly source: string, readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[]) {
    super('INVALID_BUDGETS', `Invalid budgets in ${clip(source)}: ${clip(issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '), 1000)}. Fields: maxTokens, errorRate { max, windowMs, minCalls }, maxPhaseMs, command, url.`);
  }
}

/** Validates budgets read from `source` (a file name or "options"); throws {@link InvalidBudgetsError}. */
export function parseBudgets(value: unknown, source: string): Budgets {
  const r = Budgets.safeParse(value);
  if (!r.success) throw new InvalidBudgetsError(source, r.error.issues);
  return r.data;
}

const n = (v: number): string => v.toLocaleString('en-US');
const iso = (text: string | null): number => (text === null ? Number.NaN : Date.parse(text));

/**
 * Checks `session` against `budgets` and dispatches a `watch/budgetExceeded` for each budget
 * newly crossed; returns those alerts. Each is raised once: tokens once per session, time in a
 * phase once per visit, the error rate at most once per window.
 * @example
 * ```ts
 * checkBudgets(session, { maxTokens: 100_000 }); // [{ budget: 'tokens', value: 147_775, limit: 100_000, ... }] the first time, then []
 * ```
 */
export function checkBudgets(session: WatchSession, budgets: Budgets): BudgetAlert[] {
  const raised = session.slice(WatchAlerts).all();
  const machine = session.machine(AgentPhases).current;
  const time = session.slice(TranscriptTime).latest();
  const clock = time?.lastMs ?? null;
  const found: BudgetAlert[] = [];
  if (budgets.maxTokens !== undefined && !raised.some((a) => a.budget === 'tokens')) {
    const tokens = session.computed(TokenSummary).latest().total;
    if (tokens > budgets.maxTokens) found.push({ budget: 'tokens', value: tokens, limit: budgets.maxTokens, phase: null, sinceMs: null, atMs: clock, message: `tokens ${n(tokens)} > ${n(budgets.maxTokens)}` });
  }
  const rate = budgets.errorRate;
  if (rate !== undefined && clock !== null && !raised.some((a) => a.budget === 'errorRate' && a.atMs !== null && a.atMs > clock - rate.windowMs)) {
    let settled = 0;
    let failed = 0;
    for (const call of session.slice(ToolCalls).all() as readonly ToolCall[]) {
      if (call.status === 'pending' || !(iso(call.settledAt) > clock - rate.windowMs)) continue;
      settled++;
      if (call.status === 'error') failed++;
    }
    if (settled >= rate.minCalls && failed / settled > rate.max) {
      found.push({ budget: 'errorRate', value: failed / settled, limit: rate.max, phase: null, sinceMs: null, atMs: clock, message: `${n(failed)} of ${n(settled)} tool calls failed in ${n(rate.windowMs / 1000)} s (> ${(rate.max * 100).toFixed(0)}%)` });
    }
  }
  // The first phase's visit started at the first timestamp.
  const since = machine.context.sinceMs ?? time?.firstMs ?? null;
  if (budgets.maxPhaseMs !== undefined && clock !== null && since !== null) {
    const phase = machine.basicConfiguration.join(',');
    const inPhase = clock - since;
    if (inPhase > budgets.maxPhaseMs && !raised.some((a) => a.budget === 'phaseTime' && a.phase === phase && a.sinceMs === since)) {
      found.push({ budget: 'phaseTime', value: inPhase, limit: budgets.maxPhaseMs, phase, sinceMs: since, atMs: clock, message: `${n(Math.round(inPhase / 1000))} s in ${phase} (> ${n(Math.round(budgets.maxPhaseMs / 1000))} s)` });
    }
  }
  for (const alert of found) session.dispatch(BudgetExceeded(alert));
  return found;
}
