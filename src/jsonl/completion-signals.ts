import { join } from 'node:path';
import { z } from 'zod';
import { defineSignalChannel } from './signal-channel';
import { createSignalDirectory, signalQueueDir } from './signal-directory';
import type { SignalFile } from './signal-directory-types';

/** The folder of a project that holds its completion signals, as the agent-coordination pattern names it. */
export const AGENT_SIGNALS_DIR = '.agent-signals';

/**
 * The channel of the pattern's completion signals: which agent finished, how, the state the
 * workflow goes to next, and free metadata. The pattern's timestamp is the signal file's
 * `publishedAt` (ISO 8601, ms; also in its name), so it has one value, the one that orders it.
 * `typeof CompletionSignal.Signal` is its type.
 */
export const CompletionSignal = defineSignalChannel(
  'completion',
  z.object({
    agentType: z.string().min(1),
    status: z.string().min(1),
    nextState: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  }),
);

/** The body of a completion signal: who finished, with what status, what comes next, and free metadata. */
export interface CompletionSignalBody {
  readonly agentType: string;
  readonly status: string;
  readonly nextState: string | null;
  readonly metadata: Record<string, unknown>;
}

/** One completion signal, as {@link pollSignals} returns it. */
export type CompletionSignalFile = SignalFile<CompletionSignalBody>;

/**
 * The pattern's `write_completion_signal(project_dir, agent_type, status, next_state, metadata)`:
 * publishes a {@link CompletionSignal} into `<projectDir>/.agent-signals/` as
 * `<agentType>-<timestamp>.json` (the timestamp `YYYYMMDDTHHMMSSmmmZ`, UTC, followed by the
 * process's sequence number, pid and a random part, so that names never collide and order is
 * total). Atomic and durable (temp file, fsync, rename); synchronous.
 *
 * @param agentType - Letters, digits, `.`, `_` or `-` (it starts the file name).
 * @param nextState - The workflow state to go to next, or `null`.
 * @param metadata - Free JSON data. Default `{}`.
 * @throws {@link InvalidSignalError} for an `agentType` that is not such a word, or an empty `status`; nothing is written.
 * @example
 * ```ts
 * const s = writeCompletionSignal('.', 'planner', 'completed', 'implementation', { steps: 3 });
 * console.log(s.path); // Logs: .agent-signals/planner-20261128T093246123Z-00000001-4242-9f3a1c2e.json
 * ```
 */
export function writeCompletionSignal(projectDir: string, agentType: string, status: string, nextState: string | null, metadata: Record<string, unknown> = {}): CompletionSignalFile {
  const signals = createSignalDirectory({ dir: join(projectDir, AGENT_SIGNALS_DIR), channel: CompletionSignal, source: agentType });
  return signals.publish({ agentType, status, nextState, metadata });
}

/**
 * The pattern's `poll_signals(project_dir)`: the unprocessed completion signals of
 * `<projectDir>/.agent-signals/`, oldest first (see `createSignalDirectory` for the order, the
 * claims returned to the queue and the bad files set aside into `rejected/`). Synchronous.
 * Claims nothing: with several orchestrators, use `createSignalDirectory(...).claimNext()` or
 * `watch`. Bad files are set aside without a report here (nobody could subscribe in time): their
 * reason is in `rejected/<name>~<random>.reason.json`, or open the folder with
 * `createSignalDirectory` and subscribe to `errors$` before polling.
 * @example
 * ```ts
 * for (const s of pollSignals('.')) console.log(s.signal.agentType, s.signal.status); // Logs: planner completed
 * ```
 */
export function pollSignals(projectDir: string): readonly CompletionSignalFile[] {
  return createSignalDirectory({ dir: join(projectDir, AGENT_SIGNALS_DIR), channel: CompletionSignal }).poll();
}

/**
 * The pattern's `archive_signal(path)`: moves the signal at `path` (pending or claimed) into
 * `processed/` beside it. One rename: of two orchestrators archiving one signal, one succeeds.
 * @returns The signal with its new path.
 * @throws {@link SignalClaimLostError} when there is no longer a file at `path`.
 * @example
 * ```ts
 * for (const s of pollSignals('.')) { handle(s.signal); archiveSignal(s.path); }
 * ```
 */
export function archiveSignal(path: string): CompletionSignalFile {
  return createSignalDirectory({ dir: signalQueueDir(path), channel: CompletionSignal }).archive(path);
}
