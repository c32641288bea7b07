/**
 * The slices of a replayed transcript: messages and tool calls (logs), the current plan and
 * the token usage (state). Extend the example by adding slices (or computed slices) next to
 * these and passing them to `createTranscriptSession({ slices })` in `replay.ts`.
 */
import { z } from 'zod';
import { append, defineSlice, none, replace, type SliceOp, type SliceView } from '../../src/index';
import {
  AssistantMessageAdded,
  TodosUpdated,
  Todo,
  TokenUsage as TokenUsageSchema,
  ToolCalled,
  ToolFailed,
  ToolSucceeded,
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

/** Messages in transcript order, one item per user text line or assistant line. */
export const Messages = defineSlice('messages', {
  policy: 'log',
  schema: Message,
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

const oneLine = (text: string, max: number): string => {
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

const firstLine = (text: string): string => oneLine(text.split('\n').find((l) => l.trim() !== '') ?? '', 160);

/**
 * Settles the newest call with the result's `toolUseId` (scanning from the newest item, where
 * the call almost always is); a result without a call is appended under {@link UNMATCHED_TOOL}
 * so that it is counted, not lost.
 */
function settle(
  view: SliceView<ToolCall>,
  result: { readonly toolUseId: string; readonly timestamp: string | null },
  status: 'ok' | 'error',
  error: string | null,
): SliceOp<ToolCall> {
  const all = view.all();
  for (let i = all.length - 1; i >= 0; i--) {
    const call = all[i] as ToolCall;
    if (call.toolUseId !== result.toolUseId) continue;
    const items = all.slice();
    items[i] = { ...call, status, error, settledAt: result.timestamp };
    return replace(items);
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

/** Tool calls in call order, each settled (`ok`/`error`) when its result arrives. */
export const ToolCalls = defineSlice('toolCalls', {
  policy: 'log',
  schema: ToolCall,
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

/** One item: the latest todo list (empty until the first `TodoWrite`). */
export const Plan = defineSlice('plan', {
  policy: 'state',
  schema: PlanItem,
  initial: [{ todos: [], toolUseId: null, updatedAt: null }],
  reducers: ({ onLatest }) => [
    onLatest(TodosUpdated, (_plan, { payload: p }) => ({ todos: p.todos, toolUseId: p.toolUseId, updatedAt: p.timestamp })),
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

/** One item: the running token totals (see {@link TokenTotals} for the counting rule). */
export const TokenUsage = defineSlice('tokenUsage', {
  policy: 'state',
  schema: TokenTotals,
  initial: [{ ...ZERO, responses: 0, lastMessageId: null, lastUsage: null }],
  reducers: ({ on }) => [
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

/** The example's slices, in registration order (pass them to `createSession({ slices })`). */
export const transcriptSlices = [Messages, ToolCalls, Plan, TokenUsage] as const;
