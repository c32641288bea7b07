/**
 * zod schemas of the raw Claude Code transcript lines, as found in real transcripts (Claude
 * Code 2.0 to 2.1): only the fields the replay reads are declared; other fields are ignored,
 * so new fields in later Claude Code versions do not break parsing. A line whose `type` is not
 * listed in {@link lineSchemas} is an unknown shape (counted and skipped by the parser).
 */
import { z } from 'zod';

const Flag = z.boolean().optional();
const Stamp = z.string().optional();

/** Any content block: the parser reads `type`, then parses the block with its own schema. */
export const ContentBlock = z.looseObject({ type: z.string() });

/** A `text` content block: the model's visible text. */
export const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
/** A `thinking` content block: the model's reasoning text. */
export const ThinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string() });
/** A `redacted_thinking` content block (its content is encrypted; the replay only counts it). */
export const RedactedThinkingBlock = z.object({ type: z.literal('redacted_thinking') });
/**
 * A `tool_use` content block: a tool call with its `id` (matched by the `tool_use_id` of its
 * result), tool `name` and `input` object.
 */
export const ToolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
/** `content` is a string or a list of blocks (text, sometimes images); `is_error` is absent, false or true. */
export const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(ContentBlock)]).optional(),
  is_error: z.boolean().nullish(),
});

/** `message.usage` of an assistant line (tokens). The cache fields are absent in some older lines. */
export const UsageField = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative().optional(),
  cache_read_input_tokens: z.number().int().nonnegative().optional(),
});

/**
 * A `user` line: a prompt (`content` a string) or tool results (`content` blocks). `isMeta` marks
 * lines Claude Code injects, `isSidechain` a subagent's line, `isCompactSummary` a compaction summary;
 * `timestamp` is ISO 8601 when present.
 */
export const UserLine = z.object({
  type: z.literal('user'),
  uuid: z.string(),
  timestamp: Stamp,
  isMeta: Flag,
  isSidechain: Flag,
  isCompactSummary: Flag,
  message: z.object({ content: z.union([z.string(), z.array(ContentBlock)]) }),
});

/**
 * An `assistant` line: one content block of a model message (`message.id` groups the lines of one
 * message), the `model` and, when present, the token `usage`.
 */
export const AssistantLine = z.object({
  type: z.literal('assistant'),
  uuid: z.string(),
  timestamp: Stamp,
  isSidechain: Flag,
  message: z.object({
    id: z.string(),
    model: z.string(),
    content: z.array(ContentBlock),
    usage: UsageField.optional(),
  }),
});

/**
 * A `progress` line: a running tool's progress (`data.type`, e.g. `agent_progress`, see
 * {@link AgentProgressData}), tied to the tool call `toolUseID`.
 */
export const ProgressLine = z.object({
  type: z.literal('progress'),
  data: z.looseObject({ type: z.string() }),
  toolUseID: z.string().optional(),
  parentToolUseID: z.string().optional(),
  timestamp: Stamp,
});

/**
 * `data` of a `progress` line of type `agent_progress`: one line of a subagent (a Task call)
 * relayed into the main transcript while it runs. `data.message.message.content` holds its
 * blocks: `tool_use` blocks are the subagent's tool calls, `tool_result` blocks their results.
 */
export const AgentProgressData = z.looseObject({
  type: z.literal('agent_progress'),
  message: z.looseObject({ message: z.looseObject({ content: z.union([z.string(), z.array(ContentBlock)]) }) }),
});

/** A `system` line: a notice of Claude Code (`subtype`, optional `content` and `level`). */
export const SystemLine = z.object({
  type: z.literal('system'),
  subtype: z.string(),
  content: z.string().optional(),
  level: z.string().optional(),
  timestamp: Stamp,
});

/** A `summary` line: a conversation summary, attached to the message `leafUuid`. */
export const SummaryLine = z.object({
  type: z.literal('summary'),
  summary: z.string(),
  leafUuid: z.string().optional(),
});

/** A `file-history-snapshot` line: the file backups Claude Code tracks for the message `messageId`. */
export const FileHistorySnapshotLine = z.object({
  type: z.literal('file-history-snapshot'),
  messageId: z.string(),
  snapshot: z.object({ trackedFileBackups: z.record(z.string(), z.unknown()), timestamp: Stamp }),
  isSnapshotUpdate: z.boolean(),
});

/**
 * A `queue-operation` line: a change to the queue of prompts typed while the model runs (`operation`,
 * e.g. `enqueue`, with the prompt as `content`).
 */
export const QueueOperationLine = z.object({
  type: z.literal('queue-operation'),
  operation: z.string(),
  content: z.string().optional(),
  timestamp: Stamp,
});

/** The input of a `TodoWrite` call. */
export const TodoWriteInput = z.object({
  todos: z.array(
    z.object({
      content: z.string(),
      status: z.enum(['pending', 'in_progress', 'completed']),
      activeForm: z.string().optional(),
    }),
  ),
});

/** The input of a `Task` call (the fields the replay reads). */
export const TaskInput = z.object({
  subagent_type: z.string().optional(),
  description: z.string().optional(),
});

/** The line types the parser knows, by their `type` field. */
export const lineSchemas = {
  user: UserLine,
  assistant: AssistantLine,
  progress: ProgressLine,
  system: SystemLine,
  summary: SummaryLine,
  'file-history-snapshot': FileHistorySnapshotLine,
  'queue-operation': QueueOperationLine,
} as const;

/** The `type` of a line the parser knows: a key of {@link lineSchemas}. */
export type LineType = keyof typeof lineSchemas;
