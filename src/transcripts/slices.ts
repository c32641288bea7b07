/**
 * The slices of a replayed transcript: messages and tool calls (windowed logs), the current
 * plan, the token usage and the per-tool counters (state). Computed slices over them are in
 * `computed.ts`. Extend the example by adding slices (or computed slices) next to these and
 * passing them to `createTranscriptSession({ slices })` in `replay.ts`.
 */
import { z } from 'zod';
import { append, defineSlice, none, replace, SliceWindow, updateAt, withEffects, type SliceOp, type SliceView } from '../index';
import { TranscriptTime } from './clock';
import { Notifications, Notify } from './notifications';
import {
  AssistantMessageAdded,
  TodosUpdated,
  Todo,
  TokenUsage as TokenUsageSchema,
  ToolCalled,
  ToolFailed,
  ToolSucceeded,
  TranscriptStarted,
  ProgressReported,
  UserMessageAdded,
} from './events';

/** One transcript message line: a user prompt or one assistant line (one content block of an API response). */
export const Message = z.object({
  uuid: z.string(),
  role: z.enum(['user', 'assistant']),
  timestamp: z.string().nullable(),
  text: z.string(),
  /** The API response id of an assistant line (`message.id`); `null` for user lines. */
  messageId: z.string().nullable(),
  model: z.string().nullable(),
  isMeta: z.boolean(),
  isSidechain: z.boolean(),
});
export type Message = z.infer<typeof Message>;

/** How many messages the `messages` log keeps (the newest). */
export const MESSAGES_KEPT = 500;

/** Messages in transcript order, one item per user text line or assistant line; the newest {@link MESSAGES_KEPT} are kept. */
export const Messages = /* @__PURE__ */ defineSlice('messages', {
  policy: 'log',
  schema: Message,
  window: SliceWindow.count(MESSAGES_KEPT),
  reducers: ({ on }) => [
    on(UserMessageAdded, (_view, { payload: p }) =>
      append<Message>({
        uuid: p.uuid,
        role: 'user',
        timestamp: p.timestamp,
        text: p.text,
        messageId: null,
        model: null,
        isMeta: p.isMeta || p.isCompactSummary,
        isSidechain: p.isSidechain,
      }),
    ),
    on(AssistantMessageAdded, (_view, { payload: p }) =>
      append<Message>({
        uuid: p.uuid,
        role: 'assistant',
        timestamp: p.timestamp,
        text: p.text,
        messageId: p.messageId,
        model: p.model,
        isMeta: false,
        isSidechain: p.isSidechain,
      }),
    ),
  ],
});

/** The tool name given to a result whose `tool_use_id` matches no earlier call. */
export const UNMATCHED_TOOL = '(no matching call)';

/** One tool call; `status` is `pending` until its result arrives (matched by `toolUseId`). */
export const ToolCall = z.object({
  toolUseId: z.string(),
  name: z.string(),
  /** A one-line digest of the input (command, file path, pattern, ...), at most 80 characters. */
  summary: z.string(),
  status: z.enum(['pending', 'ok', 'error']),
  /** First non-empty line of the error result, at most 160 characters; `null` unless `status` is `error`. */
  error: z.string().nullable(),
  calledAt: z.string().nullable(),
  settledAt: z.string().nullable(),
});
export type ToolCall = z.infer<typeof ToolCall>;

const SUMMARY_FIELDS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'skill', 'prompt'];

/**
 * `text` on one line (whitespace runs collapsed to a space, trimmed), cut to `max` characters with
 * `…`. Only a prefix of a long text is collapsed (tool inputs and outputs run to tens of KB): one
 * whose collapsed, trimmed form is longer than `max` decides the result as the whole text would.
 */
const oneLine = (text: string, max: number): string => {
  for (let length = 4 * max; length < text.length; length *= 4) {
    const head = text.slice(0, length).replace(/\s+/g, ' ').trim();
    if (head.length > max) return `${head.slice(0, max - 1)}…`;
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
};

/** A one-line digest of a tool input: its first string field among the usual ones. */
export function summarizeToolInput(input: Readonly<Record<string, unknown>>): string {
  for (const field of SUMMARY_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value.trim() !== '') return oneLine(value, 80);
  }
  return '';
}

/** The first non-empty line of a tool's error result, on one line, at most 160 characters (lines are read up to that one, not split all). */
export const firstLine = (text: string): string => {
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const line = end < 0 ? text.slice(start) : text.slice(start, end);
    if (line.trim() !== '') return oneLine(line, 160);
    if (end < 0) break;
    start = end + 1;
  }
  return oneLine('', 160);
};

/**
 * Settles the newest call with the result's `toolUseId` (scanning from the newest item, where
 * the call almost always is) with `updateAt`, so the other calls are neither copied nor
 * rewritten; a result without a call is appended under {@link UNMATCHED_TOOL} so that it is
 * counted, not lost.
 */
function settle(
  view: SliceView<ToolCall>,
  result: { readonly toolUseId: string; readonly timestamp: string | null },
  status: 'ok' | 'error',
  error: string | null,
): SliceOp<ToolCall> {
  // view.at reads the stored items directly (no array is made for the scan).
  for (let i = view.size - 1; i >= 0; i--) {
    const call = view.at(i) as ToolCall;
    if (call.toolUseId !== result.toolUseId) continue;
    return updateAt(i, { ...call, status, error, settledAt: result.timestamp });
  }
  return append<ToolCall>({
    toolUseId: result.toolUseId,
    name: UNMATCHED_TOOL,
    summary: '',
    status,
    error,
    calledAt: null,
    settledAt: result.timestamp,
  });
}

/** How many failed calls the `toolCalls` log protects (the newest). */
export const FAILED_CALLS_KEPT = 100;
/** How many of the newest calls (whatever their status) the `toolCalls` log keeps. */
export const RECENT_CALLS_KEPT = 900;

function failed(call: ToolCall): boolean {
  return call.status === 'error';
}

/**
 * Tool calls in call order, each settled (`ok`/`error`) when its result arrives. Windowed as
 * the seed's call log: "always keep failures, plus recent 900": the newest
 * {@link RECENT_CALLS_KEPT} calls plus every failed call (the newest {@link FAILED_CALLS_KEPT}
 * of them) however old, so at most 1,000 items. A failure among the newest 900 counts toward
 * both. Counts are kept exactly, over the whole transcript, by {@link ToolStats}, not read from
 * this log.
 */
export const ToolCalls = /* @__PURE__ */ defineSlice('toolCalls', {
  policy: 'log',
  schema: ToolCall,
  window: SliceWindow.composite(SliceWindow.predicate(failed, FAILED_CALLS_KEPT), SliceWindow.count(RECENT_CALLS_KEPT)),
  reducers: ({ on }) => [
    on(ToolCalled, (_view, { payload: p }) =>
      append<ToolCall>({
        toolUseId: p.toolUseId,
        name: p.name,
        summary: summarizeToolInput(p.input),
        status: 'pending',
        error: null,
        calledAt: p.timestamp,
        settledAt: null,
      }),
    ),
    on(ToolSucceeded, (view, { payload: p }) => settle(view, p, 'ok', null)),
    on(ToolFailed, (view, { payload: p }) => settle(view, p, 'error', firstLine(p.error))),
  ],
});

/** The agent's current plan: the todo list of its latest `TodoWrite` call. */
export const PlanItem = z.object({
  todos: z.array(Todo),
  toolUseId: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type PlanItem = z.infer<typeof PlanItem>;

const NO_PLAN: PlanItem = { todos: [], toolUseId: null, updatedAt: null };

/** One item: the latest todo list of the transcript (empty until its first `TodoWrite`). */
export const Plan = /* @__PURE__ */ defineSlice('plan', {
  policy: 'state',
  schema: PlanItem,
  initial: [NO_PLAN],
  reducers: ({ onLatest }) => [
    onLatest(TodosUpdated, (_plan, { payload: p }) => ({ todos: p.todos, toolUseId: p.toolUseId, updatedAt: p.timestamp })),
    onLatest(TranscriptStarted, () => NO_PLAN),
  ],
});

/**
 * Token totals. How tokens are counted: Claude Code writes one line per content block of an
 * API response, and every line of a response repeats `message.usage`, with `output_tokens`
 * growing while the response streams. Each run of consecutive assistant lines sharing a
 * `message.id` is one response and is counted once, with the usage of its last line: a line
 * with the same `message.id` as the previous assistant line replaces that line's contribution.
 * (In the bundled transcripts the lines of a response are always consecutive, so this equals
 * "the last line of each `message.id`".) `lastMessageId`/`lastUsage` are that bookkeeping.
 */
export const TokenTotals = TokenUsageSchema.extend({
  /** API responses counted. */
  responses: z.number().int().nonnegative(),
  lastMessageId: z.string().nullable(),
  lastUsage: TokenUsageSchema.nullable(),
});
export type TokenTotals = z.infer<typeof TokenTotals>;

const ZERO = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };
const NO_TOKENS: TokenTotals = { ...ZERO, responses: 0, lastMessageId: null, lastUsage: null };

/** One item: the transcript's running token totals (see {@link TokenTotals} for the counting rule). */
export const TokenUsage = /* @__PURE__ */ defineSlice('tokenUsage', {
  policy: 'state',
  schema: TokenTotals,
  initial: [NO_TOKENS],
  reducers: ({ on }) => [
    on(TranscriptStarted, () => replace([NO_TOKENS])),
    on(AssistantMessageAdded, (view, { payload: p }) => {
      const t = view.latest();
      if (t === undefined || p.usage === null) return none();
      const u = p.usage;
      const sameResponse = p.messageId === t.lastMessageId;
      const prev = sameResponse ? (t.lastUsage ?? ZERO) : ZERO;
      const next: TokenTotals = {
        input: t.input - prev.input + u.input,
        output: t.output - prev.output + u.output,
        cacheCreation: t.cacheCreation - prev.cacheCreation + u.cacheCreation,
        cacheRead: t.cacheRead - prev.cacheRead + u.cacheRead,
        responses: sameResponse ? t.responses : t.responses + 1,
        lastMessageId: p.messageId,
        lastUsage: u,
      };
      return replace([next]);
    }),
  ],
});

/** Calls of one tool: `calls` made, `ok` and `errors` results (`calls - ok - errors` are still pending). */
export const ToolCounter = z.object({
  name: z.string(),
  calls: z.number().int().nonnegative(),
  ok: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
});
export type ToolCounter = z.infer<typeof ToolCounter>;

/**
 * Exact tool counters over the whole transcript (the `toolCalls` log is windowed): one counter
 * per tool name in order of first call, and the calls still waiting for their result
 * (`toolUseId` → tool name; a settled call leaves this list, so it stays small).
 */
export const ToolStatsItem = z.object({
  tools: z.array(ToolCounter),
  open: z.array(z.object({ toolUseId: z.string(), name: z.string() })),
});
export type ToolStatsItem = z.infer<typeof ToolStatsItem>;

type Counts = Partial<Omit<ToolCounter, 'name'>>;

/** The tools with `counts` added to tool `name`'s counter (a new counter at the end for a new name). */
function bump(tools: readonly ToolCounter[], name: string, counts: Counts): ToolCounter[] {
  const next = tools.slice();
  const i = next.findIndex((t) => t.name === name);
  const old = i < 0 ? { name, calls: 0, ok: 0, errors: 0 } : (next[i] as ToolCounter);
  const counter = { name, calls: old.calls + (counts.calls ?? 0), ok: old.ok + (counts.ok ?? 0), errors: old.errors + (counts.errors ?? 0) };
  if (i < 0) next.push(counter);
  else next[i] = counter;
  return next;
}

/**
 * Counts a result: its call leaves `open` and its tool gets `ok` or `errors` + 1. A result
 * matching no open call counts as a call and a result of {@link UNMATCHED_TOOL}, as in the `toolCalls` log.
 */
function settleStats(stats: ToolStatsItem, toolUseId: string, field: 'ok' | 'errors'): { stats: ToolStatsItem; tool: string } {
  const at = stats.open.findIndex((c) => c.toolUseId === toolUseId);
  if (at < 0) return { stats: { tools: bump(stats.tools, UNMATCHED_TOOL, { calls: 1, [field]: 1 }), open: stats.open }, tool: UNMATCHED_TOOL };
  const tool = (stats.open[at] as { readonly name: string }).name;
  return { stats: { tools: bump(stats.tools, tool, { [field]: 1 }), open: stats.open.filter((_, i) => i !== at) }, tool };
}

/**
 * One item: the exact per-tool counters (see {@link ToolStatsItem}). A failed result also asks
 * for a `transcript/notify` effect (`withEffects`), run by the notification handler after the commit.
 */
export const ToolStats = /* @__PURE__ */ defineSlice('toolStats', {
  policy: 'state',
  schema: ToolStatsItem,
  initial: [{ tools: [], open: [] }],
  reducers: ({ on }) => [
    on(TranscriptStarted, () => replace([{ tools: [], open: [] }])),
    on(ToolCalled, (view, { payload: p }) => {
      const stats = view.latest() as ToolStatsItem;
      return replace([{ tools: bump(stats.tools, p.name, { calls: 1 }), open: [...stats.open, { toolUseId: p.toolUseId, name: p.name }] }]);
    }),
    on(ToolSucceeded, (view, { payload: p }) => replace([settleStats(view.latest() as ToolStatsItem, p.toolUseId, 'ok').stats])),
    on(ToolFailed, (view, { payload: p }) => {
      const { stats, tool } = settleStats(view.latest() as ToolStatsItem, p.toolUseId, 'errors');
      const notify = Notify({ toolUseId: p.toolUseId, tool, error: firstLine(p.error), failedAt: p.timestamp });
      return withEffects(replace([stats]), [notify]);
    }),
  ],
});

/** One item of {@link SubagentTools}: calls per tool (first-seen order), their sum, and the failed results. */
export const SubagentToolsItem = z.object({
  tools: z.array(z.object({ name: z.string(), calls: z.number().int().nonnegative() })),
  calls: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
});
export type SubagentToolsItem = z.infer<typeof SubagentToolsItem>;

const NO_SUBAGENT_TOOLS: SubagentToolsItem = { tools: [], calls: 0, errors: 0 };

/**
 * One item: the tool calls subagents made, as the main transcript relays them in its
 * `agent_progress` lines (`ProgressReported.subagentCalls`; the `toolCalls` log and `toolStats`
 * hold the transcript's own calls, the Task call among them).
 */
export const SubagentTools = /* @__PURE__ */ defineSlice('subagentTools', {
  policy: 'state',
  schema: SubagentToolsItem,
  initial: [NO_SUBAGENT_TOOLS],
  reducers: ({ on }) => [
    on(TranscriptStarted, () => replace([NO_SUBAGENT_TOOLS])),
    on(ProgressReported, (view, { payload: p }) => {
      if (p.subagentCalls.length === 0 && p.subagentErrors === 0) return none();
      const item = view.latest() ?? NO_SUBAGENT_TOOLS;
      const tools = item.tools.map((t) => ({ ...t }));
      for (const call of p.subagentCalls) {
        const tool = tools.find((t) => t.name === call.name);
        if (tool === undefined) tools.push({ name: call.name, calls: 1 });
        else tool.calls++;
      }
      return replace([{ tools, calls: item.calls + p.subagentCalls.length, errors: item.errors + p.subagentErrors }]);
    }),
  ],
});

/**
 * The transcript session's slices, in registration order (pass them to `createSession({ slices })`);
 * `transcriptTime` is the clock the `agentPhase` statechart reads, so a session that installs it needs it.
 */
export const transcriptSlices = [Messages, ToolCalls, Plan, TokenUsage, ToolStats, Notifications, TranscriptTime, SubagentTools] as const;
