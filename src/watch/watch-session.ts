/**
 * The session a watched transcript feeds: the transcript slices and statechart plus the
 * {@link WatchCursor}, in memory or durable (`jsonl` storage in a directory of its own).
 */
import type { SchedulerLike } from 'rxjs';
import { createSession, type Session } from '../index';
import type { InspectorDefinitions } from '../devtools/inspector-types';
import { jsonl } from '../jsonl/index';
import { TranscriptClock } from '../transcripts/clock';
import { transcriptEvents } from '../transcripts/events';
import { notificationEvents, NotificationChannel, type TranscriptDeps } from '../transcripts/notifications';
import { AgentPhases } from '../transcripts/phases';
import { transcriptSlices } from '../transcripts/slices';
import { BudgetExceeded, WatchAlerts } from './budgets';
import { watchEvents, WatchCursor, WatchRun } from './watch-cursor';

/** The events a watch session knows (`createSession({ events })`): the transcript events and the watch's own. */
export const watchSessionEvents = [...transcriptEvents, ...notificationEvents, ...watchEvents, BudgetExceeded] as const;

/** A session made by {@link createWatchSession}. */
export type WatchSession = Session<TranscriptDeps>;

/** Options of {@link createWatchSession}. */
export interface WatchSessionOptions {
  /** A directory of its own for this transcript's durable session (`jsonl` storage, `fsync: 'batch'`). Default: in memory. */
  readonly storeDir?: string;
}

/**
 * Creates the session of one watched transcript: `transcriptSlices`, the {@link WatchCursor} and {@link WatchRun}, the `watchAlerts` log,
 * the `agentPhase` statechart, every event validated, on a {@link TranscriptClock}.
 *
 * @remarks The `transcript/notify` effect of failed tool calls has no handler here: the demo's
 * notification channel retries on the transcript clock, and a retry waiting in a killed process
 * could not be resumed exactly, so a watched session records failures (in `toolCalls` and
 * `toolStats`) and leaves alerting to the watch's budgets. The effect's
 * `MissingEffectHandlerError` goes to `errors$`; the watch drops it. With `storeDir` the session
 * opens what the directory holds (its journal replayed) and takes the directory's lock; a lock
 * left by a killed process is taken over (its pid is gone).
 * @throws the storage's errors (`StorageLockedError`, `CorruptStorageError`) when the directory cannot be opened.
 * @example
 * ```ts
 * const session = createWatchSession({ storeDir: 'store/abc' });
 * session.slice(WatchCursor).latest()?.offset; // bytes of the transcript already applied (0 when new)
 * ```
 */
export function createWatchSession(options: WatchSessionOptions = {}): WatchSession {
  const session = createSession<TranscriptDeps>({
    validation: 'always',
    scheduler: new TranscriptClock(),
    dependencies: { channel: new NotificationChannel() },
    slices: [...transcriptSlices, WatchCursor, WatchRun, WatchAlerts],
    events: watchSessionEvents,
    ...(options.storeDir === undefined ? {} : { storage: jsonl({ dir: options.storeDir }) }),
  });
  session.install(AgentPhases);
  return session;
}

/**
 * What reading a flight recording of a watched session takes (the live inspector's model): every
 * slice of {@link createWatchSession} (the statechart's included), a replay session with the
 * statechart's reducers and no effect handler, and the statechart to draw.
 * @example
 * ```ts
 * new InspectorModel('live/t.jsonl', watchDefinitions()).machines(12)[0]?.basicConfiguration; // ['executing']
 * ```
 */
export function watchDefinitions(): InspectorDefinitions {
  const slices = [...transcriptSlices, WatchCursor, WatchRun, WatchAlerts];
  const probe = createSession({ slices, validation: 'off' });
  const machineSlice = probe.install(AgentPhases).slice;
  probe.dispose();
  return {
    slices: [...slices, machineSlice],
    session: (scheduler: SchedulerLike) => {
      const replay = createSession({ slices, scheduler, validation: 'off', events: watchSessionEvents });
      replay.install(AgentPhases);
      return replay;
    },
    machines: [AgentPhases],
  };
}
