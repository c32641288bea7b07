/**
 * CLI: replays Claude Code transcripts through an rxslice session and prints a report for each.
 *
 *   npm run demo                       replays every bundled transcript in examples/data/
 *   npm run demo -- a.jsonl dir/ ...   replays the given files (a directory: its *.jsonl files)
 *   npm run demo -- --diagram [...]    also prints the agent-phase statechart as a Mermaid diagram
 *   npm run demo -- --store <dir>      keeps each transcript's session in <dir>; a second run opens
 *                                      the stored state and replays only what is new
 *   npm run demo -- --record <file>    writes a flight recording of each replay and reads it back
 *
 * Exit code 0 when every transcript was replayed; 1 (with a message on stderr, nothing
 * replayed) when a path is missing or unreadable, or a directory holds no .jsonl file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitLines } from './parse';
import { isRxSliceError, toMermaid } from '../../src/index';
import { AgentPhases } from './phases';
import { formatReport } from './report';
import { createTranscriptSession, replayTranscript } from './replay';
import { describeRecording, openStored, recordingFileOf, saveStored, startRecording } from './durable';

const DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url));
const USAGE =
  'usage: npm run demo [-- [--diagram] [--store <dir>] [--record <file>] <transcript.jsonl | directory>...]   (no path: the bundled transcripts; --diagram: print the phase statechart in Mermaid; --store: keep the sessions in <dir>; --record: write a flight recording)';

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

/** Reads every input up front, so that a bad path fails before anything is replayed. */
function readInputs(args: readonly string[]): { inputs: Input[]; problems: string[] } {
  const inputs: Input[] = [];
  const problems: string[] = [];
  // `npm run` changes to the package root; INIT_CWD is where the user typed the command.
  const cwd = process.env['INIT_CWD'] ?? process.cwd();
  const targets = args.length === 0 ? [DATA_DIR] : args;
  for (const arg of targets) {
    const full = path.resolve(cwd, arg);
    try {
      const files = statSync(full).isDirectory() ? jsonlIn(full) : [full];
      if (files.length === 0) problems.push(`"${arg}" is a directory without .jsonl files`);
      for (const file of files) {
        const label = args.length === 0 || file !== full ? path.basename(file) : arg;
        inputs.push({ label, text: readFileSync(file, 'utf8') });
      }
    } catch (error) {
      problems.push(`cannot read "${arg}": ${describe(error)}`);
    }
  }
  return { inputs, problems };
}

/** Takes `--name <value>` or `--name=<value>` out of `args`; `null` when the value is missing. */
function takeOption(args: string[], name: string): string | null | undefined {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const arg = args[i] as string;
  if (arg.includes('=')) {
    args.splice(i, 1);
    return arg.slice(name.length + 3) || null;
  }
  const value = args[i + 1];
  args.splice(i, 2);
  return value === undefined || value.startsWith('--') ? null : value;
}

function main(argv: readonly string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const diagram = argv.includes('--diagram');
  const args = argv.filter((a) => a !== '--diagram');
  const cwd = process.env['INIT_CWD'] ?? process.cwd();
  const store = takeOption(args, 'store');
  const record = takeOption(args, 'record');
  if (store === null || record === null) {
    console.error(`agent-transcript: ${store === null ? '--store' : '--record'} needs a path`);
    console.error(USAGE);
    return 1;
  }
  const { inputs, problems } = readInputs(args);
  if (problems.length > 0) {
    for (const p of problems) console.error(`agent-transcript: ${p}`);
    console.error(USAGE);
    return 1;
  }
  let lines = 0;
  let events = 0;
  let failure: string | undefined;
  inputs.forEach((input, i) => {
    if (failure !== undefined) return;
    const transcript = splitLines(input.text);
    if (store === undefined && record === undefined) {
      const report = replayTranscript(transcript, { source: input.label });
      lines += report.lines;
      events += report.events;
      console.log(`${i > 0 ? '\n' : ''}${formatReport(report)}`);
      return;
    }
    // Durable: open the stored session (if any), record the replay, save the result.
    const session = createTranscriptSession();
    const notes: string[] = [];
    try {
      const opened = store === undefined ? undefined : openStored(session, path.resolve(cwd, store), input.label);
      if (opened !== undefined) notes.push(opened.note);
      const recordFile = record === undefined ? undefined : recordingFileOf(path.resolve(cwd, record), input.label, inputs.length > 1);
      const recorder = recordFile === undefined ? undefined : startRecording(session, recordFile);
      const report = replayTranscript(transcript, { source: input.label, session, skipEvents: opened?.skipEvents ?? 0 });
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
      console.log(`${i > 0 ? '\n' : ''}${text}\n${notes.join('\n')}`);
    } catch (error) {
      // A damaged store or recording, or one written by newer code: say which and stop.
      if (!isRxSliceError(error)) throw error;
      failure = `${input.label}: ${error.name} (${error.code}): ${error.message}`;
    } finally {
      session.dispose();
    }
  });
  if (failure !== undefined) {
    console.error(`agent-transcript: ${failure}`);
    return 1;
  }
  if (inputs.length > 1) {
    console.log(`\nreplayed ${inputs.length} transcripts: ${lines.toLocaleString('en-US')} lines, ${events.toLocaleString('en-US')} events`);
  }
  if (diagram) console.log(`\nphase statechart "${AgentPhases.name}" (Mermaid):\n${toMermaid(AgentPhases)}`);
  else console.log(`phase statechart "${AgentPhases.name}": npm run demo -- --diagram prints it as a Mermaid diagram`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
