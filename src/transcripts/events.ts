/**
 * The events of a Claude Code session transcript, as the replay dispatches them.
 *
 * One transcript line becomes zero or more of these events (see `parse.ts`): an assistant
 * line carrying a `tool_use` block becomes `transcript/assistantMessageAdded` followed by
 * `transcript/toolCalled` (and `transcript/todosUpdated` for `TodoWrite`,
 * `transcript/subagentStarted` for `Task`); a user line carrying `tool_result` blocks becomes
 * `transcript/toolSucceeded` / `transcript/toolFailed` events. Payloads are plain JSON data;
 * timestamps are the ISO-8601 strings written by Claude Code (`null` where the line has none).
 */
import { z } from 'zod';
import { defineEvent, type AnyEventCreator } from '../index';

/** Token counts of one API response, from `message.usage` (all in tokens). */
export const TokenUsage = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheCreation: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** One entry of a `TodoWrite` list, as Claude Code writes it. */
export const Todo = z.object({
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().nullable(),
});
export type Todo = z.infer<typeof Todo>;

const Timestamp = z.string().nullable();

/** A user line with text (a prompt, a slash command, a meta caveat or a compaction summary). */
export const UserMessageAdded = /* @__PURE__ */ defineEvent(
  'transcript/userMessageAdded',
  z.object({
    uuid: z.string(),
    timestamp: Timestamp,
    text: z.string(),
    isMeta: z.boolean(),
    isSidechain: z.boolean(),
    isCompactSummary: z.boolean(),
  }),
);

/**
 * An assistant line. Claude Code writes one line per content block of an API response; the
 * lines of one response share `messageId` and each repeats the response's `usage`
 * (`output` grows while the response streams). `blockTypes` lists the line's block types.
 */
export const AssistantMessageAdded = /* @__PURE__ */ defineEvent(
  'transcript/assistantMessageAdded',
  z.object({
    uuid: z.string(),
    timestamp: Timestamp,
    messageId: z.string(),
    model: z.string(),
    blockTypes: z.array(z.string()),
    text: z.string(),
    usage: TokenUsage.nullable(),
    isSidechain: z.boolean(),
  }),
);

/** A `tool_use` block: the agent called `name` with `input`. */
export const ToolCalled = /* @__PURE__ */ defineEvent(
  'transcript/toolCalled',
  z.object({
    toolUseId: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    messageId: z.string(),
    timestamp: Timestamp,
  }),
);

/** A `tool_result` block without `is_error: true`. `content` is its text, blocks joined by newlines. */
export const ToolSucceeded = /* @__PURE__ */ defineEvent(
  'transcript/toolSucceeded',
  z.object({ toolUseId: z.string(), content: z.string(), timestamp: Timestamp }),
);

/** A `tool_result` block with `is_error: true`. `error` is its text, blocks joined by newlines. */
export const ToolFailed = /* @__PURE__ */ defineEvent(
  'transcript/toolFailed',
  z.object({ toolUseId: z.string(), error: z.string(), timestamp: Timestamp }),
);

/** A `TodoWrite` call: the agent's whole todo list as it wrote it (dispatched right after its `toolCalled`). */
export const TodosUpdated = /* @__PURE__ */ defineEvent(
  'transcript/todosUpdated',
  z.object({ toolUseId: z.string(), todos: z.array(Todo), timestamp: Timestamp }),
);

/** A `Task` call: the agent started a subagent (dispatched right after its `toolCalled`). */
export const SubagentStarted = /* @__PURE__ */ defineEvent(
  'transcript/subagentStarted',
  z.object({
    toolUseId: z.string(),
    subagentType: z.string(),
    description: z.string(),
    timestamp: Timestamp,
  }),
);

/** A `progress` line: hook, bash, subagent or wait progress; `kind` is its `data.type`. */
export const ProgressReported = /* @__PURE__ */ defineEvent(
  'transcript/progressReported',
  z.object({
    kind: z.string(),
    toolUseId: z.string().nullable(),
    parentToolUseId: z.string().nullable(),
    timestamp: Timestamp,
    /** `agent_progress` lines: the subagent's tool calls relayed in the line (`tool_use` blocks); empty otherwise. */
    subagentCalls: z.array(z.object({ toolUseId: z.string(), name: z.string() })),
    /** `agent_progress` lines: how many of the subagent's tool results in the line are errors (`is_error: true`). */
    subagentErrors: z.number().int().nonnegative(),
  }),
);

/** A `system` line (`compact_boundary`, `turn_duration`, `stop_hook_summary`, `local_command`, ...). */
export const SystemMessageAdded = /* @__PURE__ */ defineEvent(
  'transcript/systemMessageAdded',
  z.object({
    subtype: z.string(),
    content: z.string().nullable(),
    level: z.string().nullable(),
    timestamp: Timestamp,
  }),
);

/** A `summary` line: the title Claude Code gave the conversation up to `leafUuid`. */
export const SummaryAdded = /* @__PURE__ */ defineEvent(
  'transcript/summaryAdded',
  z.object({ summary: z.string(), leafUuid: z.string().nullable() }),
);

/** A `file-history-snapshot` line: Claude Code backed up `trackedFiles` files before message `messageId`. */
export const FileHistorySnapshotted = /* @__PURE__ */ defineEvent(
  'transcript/fileHistorySnapshotted',
  z.object({
    messageId: z.string(),
    trackedFiles: z.number().int().nonnegative(),
    isSnapshotUpdate: z.boolean(),
    timestamp: Timestamp,
  }),
);

/** A `queue-operation` line: a prompt was queued (`enqueue`) or taken off the queue (`dequeue`, `remove`). */
export const PromptQueueChanged = /* @__PURE__ */ defineEvent(
  'transcript/promptQueueChanged',
  z.object({ operation: z.string(), content: z.string().nullable(), timestamp: Timestamp }),
);

/**
 * Another transcript starts in a session that holds earlier ones (`rxslice replay --record` with
 * several transcripts replays them into one session): dispatched by `replayTranscript` with
 * `{ earlierTranscripts: n }` (n > 0) before the transcript's first event. It returns the transcript's state
 * (plan, token totals, tool statistics, the `agentPhase` statechart and `transcriptTime`) to its
 * start, so that the hours between two unrelated transcripts count in no phase and every figure
 * read from that state is the new transcript's own; the logs (messages, tool calls,
 * notifications) go on. `previous`: transcripts replayed into the session before this one.
 */
export const TranscriptStarted = /* @__PURE__ */ defineEvent('transcript/transcriptStarted', z.object({ source: z.string(), previous: z.number().int().positive() }));

/** Every transcript event creator, for `createSession({ events })` so that each dispatch is validated. */
export const transcriptEvents: readonly AnyEventCreator[] = [
  UserMessageAdded,
  AssistantMessageAdded,
  ToolCalled,
  ToolSucceeded,
  ToolFailed,
  TodosUpdated,
  SubagentStarted,
  ProgressReported,
  SystemMessageAdded,
  SummaryAdded,
  FileHistorySnapshotted,
  PromptQueueChanged,
  TranscriptStarted,
];
