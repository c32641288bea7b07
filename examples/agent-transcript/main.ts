/**
 * CLI: replays Claude Code transcripts through an rxslice session and prints a report for each.
 *
 *   npm run demo                       replays every bundled transcript in examples/data/
 *   npm run demo -- a.jsonl dir/ ...   replays the given files (a directory: its *.jsonl files)
 *   npm run demo -- --diagram [...]    also prints the agent-phase statechart as a Mermaid diagram
 *
 * Exit code 0 when every transcript was replayed; 1 (with a message on stderr, nothing
 * replayed) when a path is missing or unreadable, or a directory holds no .jsonl file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitLines } from './parse';
import { toMermaid } from '../../src/index';
import { AgentPhases } from './phases';
import { formatReport } from './report';
import { replayTranscript } from './replay';

const DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url));
const USAGE =
  'usage: npm run demo [-- [--diagram] <transcript.jsonl | directory>...]   (no path: the bundled transcripts; --diagram: print the phase statechart in Mermaid)';

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

function main(argv: readonly string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const diagram = argv.includes('--diagram');
  const args = argv.filter((a) => a !== '--diagram');
  const { inputs, problems } = readInputs(args);
  if (problems.length > 0) {
    for (const p of problems) console.error(`agent-transcript: ${p}`);
    console.error(USAGE);
    return 1;
  }
  let lines = 0;
  let events = 0;
  inputs.forEach((input, i) => {
    const report = replayTranscript(splitLines(input.text), { source: input.label });
    lines += report.lines;
    events += report.events;
    console.log(`${i > 0 ? '\n' : ''}${formatReport(report)}`);
  });
  if (inputs.length > 1) {
    console.log(`\nreplayed ${inputs.length} transcripts: ${lines.toLocaleString('en-US')} lines, ${events.toLocaleString('en-US')} events`);
  }
  if (diagram) console.log(`\nphase statechart "${AgentPhases.name}" (Mermaid):\n${toMermaid(AgentPhases)}`);
  else console.log(`phase statechart "${AgentPhases.name}": npm run demo -- --diagram prints it as a Mermaid diagram`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
