/**
 * Claude Code transcript line → transcript events, with a reason for everything skipped.
 *
 * Nothing here throws on bad input and nothing is dropped silently: a line that is not JSON,
 * not an object, of an unknown `type` or of a known type with an unexpected shape yields no
 * event and one skip reason; a known line with an unknown part (a content block type the
 * parser does not know, a `TodoWrite` input that is not a todo list) yields the events of
 * its other parts plus one skip reason per unknown part.
 */
import type { z } from 'zod';
import type { Event } from '../index';
import {
  AssistantMessageAdded,
  FileHistorySnapshotted,
  ProgressReported,
  PromptQueueChanged,
  SubagentStarted,
  SummaryAdded,
  SystemMessageAdded,
  TodosUpdated,
  ToolCalled,
  ToolFailed,
  ToolSucceeded,
  UserMessageAdded,
} from './events';
import {
  AgentProgressData,
  AssistantLine,
  ContentBlock,
  FileHistorySnapshotLine,
  lineSchemas,
  ProgressLine,
  QueueOperationLine,
  SummaryLine,
  SystemLine,
  TaskInput,
  TextBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  TodoWriteInput,
  ToolResultBlock,
  ToolUseBlock,
  UserLine,
  type LineType,
} from './line-schemas';
import { quote } from '../internal/quote';

/** What one line turned into: its events, in dispatch order, and the reasons of skipped parts. */
export interface ParsedLine {
  readonly events: readonly Event[];
  readonly skipped: readonly string[];
}

/** A whole transcript, parsed. `skipped` counts skip reasons; `skippedLines` counts lines that gave no event. */
export interface ParsedTranscript {
  readonly lines: number;
  readonly events: readonly Event[];
  readonly skipped: ReadonlyMap<string, number>;
  readonly skippedLines: number;
}

type ContentBlockValue = z.infer<typeof ContentBlock>;

const skip = (reason: string): ParsedLine => ({ events: [], skipped: [reason] });

/** The reason {@link parseLine} gives for a line that is not JSON (a line cut off by a crash, or not a transcript at all). */
export const INVALID_JSON = 'invalid JSON';

/** A bounded reason for a zod failure: the first issue's path and code (no values, so reasons group well). */
function shapeReason(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.join('.');
  return `malformed ${what} (${path}: ${issue?.code ?? 'invalid'})`;
}

/** Text of a tool result's `content`: the string, or its text blocks joined by newlines (`[image]` for others). */
function resultText(content: string | readonly ContentBlockValue[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' && typeof b['text'] === 'string' ? b['text'] : `[${b.type}]`)).join('\n');
}

function parseUser(line: z.infer<typeof UserLine>): ParsedLine {
  const timestamp = line.timestamp ?? null;
  const message = (text: string): Event =>
    UserMessageAdded({
      uuid: line.uuid,
      timestamp,
      text,
      isMeta: line.isMeta ?? false,
      isSidechain: line.isSidechain ?? false,
      isCompactSummary: line.isCompactSummary ?? false,
    });
  const content = line.message.content;
  if (typeof content === 'string') return { events: [message(content)], skipped: [] };
  const events: Event[] = [];
  const skipped: string[] = [];
  const texts: string[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      const r = TextBlock.safeParse(block);
      if (r.success) texts.push(r.data.text);
      else skipped.push(shapeReason('user text block', r.error));
    } else if (block.type === 'tool_result') {
      const r = ToolResultBlock.safeParse(block);
      if (!r.success) {
        skipped.push(shapeReason('user tool_result block', r.error));
        continue;
      }
      const text = resultText(r.data.content);
      events.push(
        r.data.is_error === true
          ? ToolFailed({ toolUseId: r.data.tool_use_id, error: text, timestamp })
          : ToolSucceeded({ toolUseId: r.data.tool_use_id, content: text, timestamp }),
      );
    } else {
      skipped.push(`unknown user content block ${quote(block.type)}`);
    }
  }
  // Text blocks of one line form one message, dispatched after the line's tool results.
  if (texts.length > 0) events.push(message(texts.join('\n')));
  return { events, skipped };
}

function parseAssistant(line: z.infer<typeof AssistantLine>): ParsedLine {
  const { message } = line;
  const timestamp = line.timestamp ?? null;
  const follow: Event[] = [];
  const skipped: string[] = [];
  const texts: string[] = [];
  const blockTypes: string[] = [];
  for (const block of message.content) {
    blockTypes.push(block.type);
    if (block.type === 'text') {
      const r = TextBlock.safeParse(block);
      if (r.success) texts.push(r.data.text);
      else skipped.push(shapeReason('assistant text block', r.error));
    } else if (block.type === 'thinking') {
      const r = ThinkingBlock.safeParse(block);
      if (!r.success) skipped.push(shapeReason('assistant thinking block', r.error));
    } else if (block.type === 'redacted_thinking') {
      const r = RedactedThinkingBlock.safeParse(block);
      if (!r.success) skipped.push(shapeReason('assistant redacted_thinking block', r.error));
    } else if (block.type === 'tool_use') {
      const r = ToolUseBlock.safeParse(block);
      if (!r.success) {
        skipped.push(shapeReason('assistant tool_use block', r.error));
        continue;
      }
      const { id: toolUseId, name, input } = r.data;
      follow.push(ToolCalled({ toolUseId, name, input, messageId: message.id, timestamp }));
      if (name === 'TodoWrite') {
        const todos = TodoWriteInput.safeParse(input);
        if (todos.success) {
          const list = todos.data.todos.map((t) => ({ content: t.content, status: t.status, activeForm: t.activeForm ?? null }));
          follow.push(TodosUpdated({ toolUseId, todos: list, timestamp }));
        } else {
          skipped.push(shapeReason('TodoWrite input', todos.error));
        }
      } else if (name === 'Task') {
        const task = TaskInput.safeParse(input);
        if (task.success) {
          const { subagent_type: subagentType = 'general-purpose', description = '' } = task.data;
          follow.push(SubagentStarted({ toolUseId, subagentType, description, timestamp }));
        } else {
          skipped.push(shapeReason('Task input', task.error));
        }
      }
    } else {
      skipped.push(`unknown assistant content block ${quote(block.type)}`);
    }
  }
  const u = message.usage;
  const usage =
    u === undefined
      ? null
      : {
          input: u.input_tokens,
          output: u.output_tokens,
          cacheCreation: u.cache_creation_input_tokens ?? 0,
          cacheRead: u.cache_read_input_tokens ?? 0,
        };
  const added = AssistantMessageAdded({
    uuid: line.uuid,
    timestamp,
    messageId: message.id,
    model: message.model,
    blockTypes,
    text: texts.join('\n'),
    usage,
    isSidechain: line.isSidechain ?? false,
  });
  return { events: [added, ...follow], skipped };
}

const one = (event: Event): ParsedLine => ({ events: [event], skipped: [] });

/** The `type` field of a parsed JSON value, when it is an object that has one. */
const typeOf = (value: unknown): unknown => (value !== null && typeof value === 'object' ? (value as { type?: unknown }).type : undefined);

/**
 * The subagent's tool calls and failed results relayed in an `agent_progress` line (none for
 * other progress lines, or blocks of a shape not recognised: those are left out, as found).
 */
function subagentBlocks(data: unknown): { subagentCalls: { toolUseId: string; name: string }[]; subagentErrors: number } {
  const calls: { toolUseId: string; name: string }[] = [];
  let errors = 0;
  // Each schema below requires its `type` literal: a value of another type is passed over before
  // its parse, which would fail (most progress lines are not `agent_progress`, and a block is
  // either a call or a result), as a failed parse builds an error object for nothing.
  const progress = typeOf(data) === 'agent_progress' ? AgentProgressData.safeParse(data) : undefined;
  const content = progress?.success === true ? progress.data.message.message.content : [];
  if (Array.isArray(content)) {
    for (const block of content) {
      const type = typeOf(block);
      if (type === 'tool_use') {
        const use = ToolUseBlock.safeParse(block);
        if (use.success) calls.push({ toolUseId: use.data.id, name: use.data.name });
      } else if (type === 'tool_result') {
        const result = ToolResultBlock.safeParse(block);
        if (result.success && result.data.is_error === true) errors++;
      }
    }
  }
  return { subagentCalls: calls, subagentErrors: errors };
}

const parsers: { readonly [K in LineType]: (line: z.infer<(typeof lineSchemas)[K]>) => ParsedLine } = {
  user: parseUser,
  assistant: parseAssistant,
  progress: (line: z.infer<typeof ProgressLine>) =>
    one(
      ProgressReported({
        kind: line.data.type,
        toolUseId: line.toolUseID ?? null,
        parentToolUseId: line.parentToolUseID ?? null,
        timestamp: line.timestamp ?? null,
        ...subagentBlocks(line.data),
      }),
    ),
  system: (line: z.infer<typeof SystemLine>) =>
    one(
      SystemMessageAdded({
        subtype: line.subtype,
        content: line.content ?? null,
        level: line.level ?? null,
        timestamp: line.timestamp ?? null,
      }),
    ),
  summary: (line: z.infer<typeof SummaryLine>) => one(SummaryAdded({ summary: line.summary, leafUuid: line.leafUuid ?? null })),
  'file-history-snapshot': (line: z.infer<typeof FileHistorySnapshotLine>) =>
    one(
      FileHistorySnapshotted({
        messageId: line.messageId,
        trackedFiles: Object.keys(line.snapshot.trackedFileBackups).length,
        isSnapshotUpdate: line.isSnapshotUpdate,
        timestamp: line.snapshot.timestamp ?? null,
      }),
    ),
  'queue-operation': (line: z.infer<typeof QueueOperationLine>) =>
    one(PromptQueueChanged({ operation: line.operation, content: line.content ?? null, timestamp: line.timestamp ?? null })),
};

const isLineType = (type: string): type is LineType => Object.hasOwn(lineSchemas, type);

/**
 * Parses one transcript line into transcript events.
 *
 * @remarks Pure and synchronous; never throws. Skip reasons are short, bounded strings meant
 * to be counted: `blank line`, `invalid JSON`, `not a JSON object`, `no "type" field`,
 * `unknown line type "x"`, `malformed <what> (<path>: <zod issue code>)`,
 * `unknown <role> content block "x"`, `empty <type> line`.
 * @param line - One line of a Claude Code JSONL transcript, without its line break.
 * @returns The line's events in dispatch order and the reasons for what was skipped.
 * @example
 * ```ts
 * parseLine('{"type":"summary","summary":"Fix the build","leafUuid":"u1"}');
 * // { events: [{ type: 'transcript/summaryAdded', payload: { summary: 'Fix the build', leafUuid: 'u1' } }], skipped: [] }
 * parseLine('{"type":"custom-title"}'); // { events: [], skipped: ['unknown line type "custom-title"'] }
 * ```
 */
export function parseLine(line: string): ParsedLine {
  if (line.trim() === '') return skip('blank line');
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return skip(INVALID_JSON);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return skip('not a JSON object');
  const type = (json as { type?: unknown }).type;
  if (typeof type !== 'string') return skip('no "type" field');
  if (!isLineType(type)) return skip(`unknown line type ${quote(type)}`);
  const r = (lineSchemas[type] as z.ZodType).safeParse(json);
  if (!r.success) return skip(shapeReason(`${type} line`, r.error));
  const parsed = (parsers[type] as (line: unknown) => ParsedLine)(r.data);
  // A known line with nothing in it (a user line with an empty content list) is still counted.
  return parsed.events.length === 0 && parsed.skipped.length === 0 ? skip(`empty ${type} line`) : parsed;
}

/**
 * Splits a JSONL text into lines (`\n` or `\r\n`); the empty string after a final line break
 * is not a line, so a file of N lines ending with a newline gives N lines.
 * @example
 * ```ts
 * splitLines('{"a":1}\n{"b":2}\n'); // ['{"a":1}', '{"b":2}']
 * ```
 */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Parses every line of a transcript (see {@link parseLine}) and counts skip reasons.
 * @example
 * ```ts
 * const parsed = parseTranscript(splitLines(text));
 * parsed.lines; // lines read
 * parsed.skipped.get('invalid JSON'); // lines that were not JSON (undefined when none)
 * ```
 */
export function parseTranscript(lines: readonly string[]): ParsedTranscript {
  const events: Event[] = [];
  const skipped = new Map<string, number>();
  let skippedLines = 0;
  for (const line of lines) {
    const parsed = parseLine(line);
    for (const e of parsed.events) events.push(e);
    for (const reason of parsed.skipped) skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
    if (parsed.events.length === 0) skippedLines++;
  }
  return { lines: lines.length, events, skipped, skippedLines };
}
