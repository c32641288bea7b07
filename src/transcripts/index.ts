/**
 * `rxslice/transcripts`: the agent-transcript domain that `rxslice replay`, `rxslice inspect` and
 * `rxslice stats` are built from, as a public entry.
 *
 * - the parser of Claude Code session transcripts (JSONL, one object per line) into typed events
 *   ({@link parseTranscript}, {@link parseLine}, {@link splitLines}, the line schemas);
 * - the events, slices (messages and tool-call logs with windows; plan, token and tool-statistics
 *   state; notifications) and computed slices of a transcript session;
 * - the `agentPhase` statechart ({@link AgentPhases}) and its time per phase ({@link phaseDurations});
 * - the replay ({@link createTranscriptSession}, {@link replayTranscript}) and its text report
 *   ({@link formatReport});
 * - the durable helpers of the command line and {@link transcriptDefinitions}, which reads back a
 *   recording that `rxslice replay --record` wrote.
 *
 * Node only (the durable helpers use `node:fs`).
 * @example
 * ```ts
 * import { readRecording } from 'rxslice/storage/jsonl';
 * import { transcriptDefinitions } from 'rxslice/transcripts';
 *
 * const recording = readRecording('run.jsonl', transcriptDefinitions()); // rxslice replay --record run.jsonl
 * recording.stateAt(recording.lastSeq).slices['messages']?.items.length; // the messages kept at the end
 * ```
 */
export { timestampOf, TranscriptClock, TranscriptTime, TranscriptTimeItem } from './clock';
export { TaskSummary, ToolStatsOf, ToolNames, ToolCallTotals, TokenSummary, type ToolStatistics } from './computed';
export {
  storeFileOf,
  openStored,
  saveStored,
  recordingFileOf,
  TRANSCRIPT_LABEL,
  startRecording,
  transcriptDefinitions,
  describeRecording,
  type OpenedStore,
} from './durable';
export {
  TokenUsage as TokenCounts,
  Todo,
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
  transcriptEvents,
} from './events';
export {
  ContentBlock,
  TextBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock,
  UsageField,
  UserLine,
  AssistantLine,
  ProgressLine,
  AgentProgressData,
  SystemLine,
  SummaryLine,
  FileHistorySnapshotLine,
  QueueOperationLine,
  TodoWriteInput,
  TaskInput,
  lineSchemas,
  type LineType,
} from './line-schemas';
export {
  Notification,
  NOTIFY_MAX_ATTEMPTS,
  NOTIFY_INITIAL_DELAY_MS,
  NotificationDelivered,
  NotificationAbandoned,
  NotificationRejectedError,
  Notify,
  NotificationChannel,
  deliverNotification,
  NotificationRecord,
  Notifications,
  notificationEvents,
  type Delivery,
  type TranscriptDeps,
} from './notifications';
export { parseLine, splitLines, parseTranscript, type ParsedLine, type ParsedTranscript } from './parse';
export { PHASES, AgentPhases, phaseDurations, type Phase, type PhaseContext, type PhaseDurations } from './phases';
export {
  createTranscriptSession,
  replayTranscript,
  type TranscriptSession,
  type TranscriptSessionOptions,
  type WindowReport,
  type NotificationReport,
  type ReplayTiming,
  type ReplayReport,
  type ReplayOptions,
} from './replay';
export { formatDuration, formatReport } from './report';
export {
  Message,
  MESSAGES_KEPT,
  Messages,
  UNMATCHED_TOOL,
  ToolCall,
  FAILED_CALLS_KEPT,
  RECENT_CALLS_KEPT,
  ToolCalls,
  PlanItem,
  Plan,
  TokenTotals,
  TokenUsage,
  ToolCounter,
  ToolStatsItem,
  ToolStats,
  SubagentTools,
  SubagentToolsItem,
  transcriptSlices,
} from './slices';
