import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isRxSliceError } from '../internal/errors';
import { toMermaid } from '../machines/to-mermaid';
import { splitLines } from '../transcripts/parse';
import { AgentPhases } from '../transcripts/phases';
import { formatReport } from '../transcripts/report';
import { createTranscriptSession, replayTranscript, type TranscriptSession } from '../transcripts/replay';
import { describeRecording, openStored, recordingFileOf, saveStored, startRecording } from '../transcripts/durable';
import { inputKind, refusal } from './input-kind';
import { progress, type CliIO, type Progress } from './progress';
import { quote } from '../internal/quote';

/** Options of `rxslice replay`. */
export interface ReplayCommandOptions {
  readonly store?: string;
  readonly record?: string;
  readonly diagram?: boolean;
}

interface Input {
  readonly label: string;
  readonly text: string;
}

const jsonlIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(dir, f));

const describe = (error: unknown): string => {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
};

/** What `rxslice replay` reads, as its refusals say. */
export const REPLAY_EXPECTS = 'Claude Code transcripts (.jsonl files, or directories of them)';

/**
 * Reads every input up front, so that a bad path fails before anything is replayed: each path
 * must be a transcript or a directory of them (every `.jsonl` file in it a transcript); anything
 * else (a flight recording, a store or checkpoint directory, another kind of file) is refused.
 */
function readInputs(cwd: string, args: readonly string[]): { inputs: Input[]; problems: string[] } {
  const inputs: Input[] = [];
  const problems: string[] = [];
  for (const arg of args) {
    const full = path.resolve(cwd, arg);
    const input = inputKind(full);
    if (input.kind !== 'transcript' && input.kind !== 'transcripts-directory') {
      problems.push(refusal('replay', arg, input, REPLAY_EXPECTS));
      continue;
    }
    try {
      const files = input.kind === 'transcripts-directory' ? jsonlIn(full) : [full];
      for (const file of files) {
        const label = file !== full ? path.basename(file) : arg;
        const kind = file !== full ? inputKind(file) : input;
        if (kind.kind !== 'transcript') problems.push(refusal('replay', path.join(arg, path.basename(file)), kind, REPLAY_EXPECTS));
        else inputs.push({ label, text: readFileSync(file, 'utf8') });
      }
    } catch (error) {
      problems.push(`rxslice replay: cannot read ${quote(arg)}: ${describe(error)}`);
    }
  }
  return { inputs, problems };
}

/**
 * `rxslice replay <transcripts...>`: replays Claude Code transcripts (files, or directories of
 * `.jsonl` files) through a transcript session and prints a report for each.
 *
 * - `--store <dir>` keeps each transcript's session in `<dir>`; a second run opens the stored
 *   state and replays only what is new.
 * - `--record <file>` writes a flight recording of the replay (label `rxslice.transcript`) and
 *   reads it back. With several transcripts and no `--store`, they are replayed one after the
 *   other into one session, recorded in `<file>`, each after the first opened by
 *   `transcript/transcriptStarted` (its report gives its own figures; no time between two
 *   transcripts is booked to a phase); with `--store` too, each transcript gets its own
 *   session and recording (`<file>` with the transcript's name inserted).
 * - `--diagram` prints the phase statechart in Mermaid.
 *
 * A progress bar (or plain lines off a terminal) shows on stderr for replays over a second.
 * @returns The exit code: 0 when every transcript was replayed; 1 (one line per bad path on stderr,
 * nothing replayed) for a missing or unreadable path, a directory without `.jsonl` files, a file or
 * directory that is not a transcript (a flight recording, a store, checkpoints, another kind of
 * file), or a damaged store.
 */
export function replayCommand(paths: readonly string[], options: ReplayCommandOptions, io: CliIO): number {
  const { inputs, problems } = readInputs(io.cwd, paths);
  if (problems.length > 0) {
    for (const p of problems) io.stderr.write(`${p}\n`);
    return 1;
  }
  const out = (text: string) => io.stdout.write(`${text}\n`);
  const { store, record } = options;
  let lines = 0;
  let events = 0;
  let failure: string | undefined;
  // Several transcripts recorded without a store: one session, one recording.
  const shared = record !== undefined && store === undefined && inputs.length > 1 ? createTranscriptSession() : undefined;
  const sharedFile = record === undefined ? undefined : path.resolve(io.cwd, record);
  const sharedRecorder = shared === undefined || sharedFile === undefined ? undefined : startRecording(shared, sharedFile);
  if (shared !== undefined) {
    out(
      `record: ${inputs.length} transcripts replayed one after the other into one session, recorded in ${sharedFile}; ` +
        "each transcript after the first starts with transcript/transcriptStarted, so each report gives its transcript's own figures (the windows' kept counts are the whole run's)",
    );
  }
  try {
    inputs.forEach((input, i) => {
      if (failure !== undefined) return;
      const transcript = splitLines(input.text);
      let bar: Progress | undefined;
      const onProgress = (done: number, total: number) => (bar ??= progress(io, input.label, total, 'events')).update(done);
      if (store === undefined && record === undefined) {
        const report = replayTranscript(transcript, { source: input.label, onProgress });
        bar?.stop();
        lines += report.lines;
        events += report.events;
        out(`${i > 0 ? '\n' : ''}${formatReport(report)}`);
        return;
      }
      if (shared !== undefined) {
        const report = replayTranscript(transcript, { source: input.label, session: shared, onProgress, earlierTranscripts: i });
        bar?.stop();
        lines += report.lines;
        events += report.events;
        out(`${i > 0 ? '\n' : ''}${formatReport(report)}`);
        return;
      }
      // Durable: open the stored session (if any), record the replay, save the result.
      const session: TranscriptSession = createTranscriptSession();
      const notes: string[] = [];
      try {
        const opened = store === undefined ? undefined : openStored(session, path.resolve(io.cwd, store), input.label);
        if (opened !== undefined) notes.push(opened.note);
        const recordFile = sharedFile === undefined ? undefined : recordingFileOf(sharedFile, input.label, inputs.length > 1);
        const recorder = recordFile === undefined ? undefined : startRecording(session, recordFile);
        const report = replayTranscript(transcript, { source: input.label, session, skipEvents: opened?.skipEvents ?? 0, onProgress });
        bar?.stop();
        lines += report.lines;
        events += report.events;
        if (opened !== undefined) notes.push(saveStored(session, opened.file, input.label, transcript));
        if (recorder !== undefined && recordFile !== undefined) {
          recorder.close();
          notes.push(describeRecording(recordFile, session));
        }
        let text = formatReport(report);
        // Events already in the store were not dispatched again: say so rather than "none".
        if (opened !== undefined && opened.skipEvents > 0) text = text.replace(' (not a Claude Code transcript?)', ', all were already in the store');
        out(`${i > 0 ? '\n' : ''}${text}\n${notes.join('\n')}`);
      } catch (error) {
        // A damaged store or recording, or one written by newer code: say which and stop.
        if (!isRxSliceError(error)) throw error;
        failure = `${input.label}: ${error.name} (${error.code}): ${error.message}`;
      } finally {
        session.dispose();
      }
    });
    if (shared !== undefined && sharedRecorder !== undefined && sharedFile !== undefined && failure === undefined) {
      sharedRecorder.close();
      out(`\n${describeRecording(sharedFile, shared)}`);
    }
  } finally {
    sharedRecorder?.close();
    shared?.dispose();
  }
  if (failure !== undefined) {
    io.stderr.write(`rxslice replay: ${failure}\n`);
    return 1;
  }
  if (inputs.length > 1) out(`\nreplayed ${inputs.length} transcripts: ${lines.toLocaleString('en-US')} lines, ${events.toLocaleString('en-US')} events`);
  if (options.diagram === true) out(`\nphase statechart "${AgentPhases.name}" (Mermaid):\n${toMermaid(AgentPhases)}`);
  else out(`phase statechart "${AgentPhases.name}": --diagram prints it as a Mermaid diagram`);
  if (record !== undefined && sharedFile !== undefined) out(`inspect it: rxslice inspect ${shared !== undefined || inputs.length === 1 ? record : '<recording>'}`);
  return 0;
}
