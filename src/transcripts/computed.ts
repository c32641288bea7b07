/**
 * Computed slices over the transcript's state slices: the task summary (from the plan), the
 * per-tool statistics (a family keyed by tool name), the tool-call totals and the token totals.
 * The report reads these from the session (`session.computed(def)`), so every number in it is
 * one that a subscriber of the live session would see.
 *
 * They derive from the state slices (`plan`, `toolStats`, `tokenUsage`), never from the
 * windowed logs, so they stay exact over the whole transcript however much the logs evicted.
 */
import { defineComputed, defineComputedFamily } from '../index';
import type { Todo } from './events';
import { Plan, TokenUsage, ToolStats, type ToolCounter, type ToolStatsItem } from './slices';

/** The plan's progress, and what still blocks it. */
export interface TaskSummary {
  /** False until the first `TodoWrite` call. */
  readonly hasPlan: boolean;
  /** Todos in the latest `TodoWrite` list. */
  readonly total: number;
  /** Todos with status `completed`. */
  readonly completed: number;
  /** Todos with status `in_progress`. */
  readonly inProgress: number;
  /** Todos with status `pending`. */
  readonly pending: number;
  /** `completed / total`, rounded to a whole percent; 0 for an empty list. */
  readonly progressPercent: number;
  /** The todos not completed yet: those in progress first, then the pending ones, each in list order. */
  readonly blocking: readonly Todo[];
  /** The timestamp of the latest `TodoWrite` call. */
  readonly updatedAt: string | null;
  /** The latest `TodoWrite` list, in its order. */
  readonly todos: readonly Todo[];
}

/** Task summary of the latest todo list (see {@link TaskSummary}). Emits when the plan changes. */
export const TaskSummary = /* @__PURE__ */ defineComputed('transcript/taskSummary', [Plan], (plans): TaskSummary => {
  const plan = plans[plans.length - 1];
  const todos = plan?.todos ?? [];
  const count = (status: Todo['status']): number => todos.filter((t) => t.status === status).length;
  const completed = count('completed');
  return {
    hasPlan: plan !== undefined && plan.toolUseId !== null,
    total: todos.length,
    completed,
    inProgress: count('in_progress'),
    pending: count('pending'),
    progressPercent: todos.length === 0 ? 0 : Math.round((completed / todos.length) * 100),
    blocking: [...todos.filter((t) => t.status === 'in_progress'), ...todos.filter((t) => t.status === 'pending')],
    updatedAt: plan?.updatedAt ?? null,
    todos,
  };
});

/** Statistics of one tool over the whole transcript. */
export interface ToolStatistics {
  /** The tool's name (`(no matching call)` for results without a call). */
  readonly name: string;
  /** Calls made. */
  readonly calls: number;
  /** Calls whose result was not an error. */
  readonly ok: number;
  /** Calls whose result was an error (`is_error: true`). */
  readonly errors: number;
  /** Calls without a result (yet). */
  readonly pending: number;
  /** `errors / (ok + errors)`: the failed share of the answered calls, 0 when none was answered. */
  readonly errorRate: number;
}

const statisticsOf = (name: string, counter: ToolCounter | undefined): ToolStatistics => {
  const calls = counter?.calls ?? 0;
  const ok = counter?.ok ?? 0;
  const errors = counter?.errors ?? 0;
  return { name, calls, ok, errors, pending: calls - ok - errors, errorRate: ok + errors === 0 ? 0 : errors / (ok + errors) };
};

const sameStatistics = (a: ToolStatistics, b: ToolStatistics): boolean =>
  a.calls === b.calls && a.ok === b.ok && a.errors === b.errors;

const statsItem = (items: readonly ToolStatsItem[]): ToolStatsItem => items[items.length - 1] ?? { tools: [], open: [] };

/**
 * Per-tool statistics, one member per tool name: `session.computed(ToolStatsOf)('Bash')`.
 * A member emits only when its own tool's counts change (`equals` compares the counts).
 */
export const ToolStatsOf = defineComputedFamily(
  'transcript/toolStats',
  [ToolStats],
  (tool: string) => (items) => statisticsOf(tool, statsItem(items).tools.find((t) => t.name === tool)),
  { equals: sameStatistics },
);

const sameNames = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((name, i) => name === b[i]);

/** Tool names by calls, descending (ties by name). Emits when the order or the set changes. */
export const ToolNames = /* @__PURE__ */ defineComputed(
  'transcript/toolNames',
  [ToolStats],
  (items): readonly string[] =>
    [...statsItem(items).tools].sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1)).map((t) => t.name),
  { equals: sameNames },
);

/** All tool calls: made, failed, and without a result. */
export interface ToolCallTotals {
  /** Calls made, over every tool. */
  readonly total: number;
  /** Calls whose result was an error. */
  readonly errors: number;
  /** Calls without a result (yet). */
  readonly pending: number;
}

/** Tool-call totals over every tool (results without a call included, as calls of `(no matching call)`). */
export const ToolCallTotals = /* @__PURE__ */ defineComputed('transcript/toolCallTotals', [ToolStats], (items): ToolCallTotals => {
  let total = 0;
  let errors = 0;
  let answered = 0;
  for (const t of statsItem(items).tools) {
    total += t.calls;
    errors += t.errors;
    answered += t.ok + t.errors;
  }
  return { total, errors, pending: total - answered };
});

/** Token totals (see `TokenTotals` in `slices.ts` for the counting rule); `total` is the sum of the four kinds. */
export interface TokenSummary {
  /** Input tokens (`input_tokens`). */
  readonly input: number;
  /** Output tokens (`output_tokens`). */
  readonly output: number;
  /** Tokens written to the prompt cache (`cache_creation_input_tokens`). */
  readonly cacheCreation: number;
  /** Tokens read from the prompt cache (`cache_read_input_tokens`). */
  readonly cacheRead: number;
  /** The sum of the four kinds. */
  readonly total: number;
  /** API responses counted. */
  readonly responses: number;
}

/** The token totals without the counting bookkeeping, plus their sum. */
export const TokenSummary = /* @__PURE__ */ defineComputed('transcript/tokenSummary', [TokenUsage], (items): TokenSummary => {
  const t = items[items.length - 1];
  if (t === undefined) return { input: 0, output: 0, cacheCreation: 0, cacheRead: 0, total: 0, responses: 0 };
  return {
    input: t.input,
    output: t.output,
    cacheCreation: t.cacheCreation,
    cacheRead: t.cacheRead,
    total: t.input + t.output + t.cacheCreation + t.cacheRead,
    responses: t.responses,
  };
});
