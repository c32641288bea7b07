/**
 * The demo: `rxslice replay` on the bundled transcripts (see `src/cli/replay-command.ts`).
 *
 *   npm run demo                       replays every bundled transcript in examples/data/
 *   npm run demo -- a.jsonl dir/ ...   replays the given files (a directory: its *.jsonl files)
 *   npm run demo -- --diagram [...]    also prints the agent-phase statechart as a Mermaid diagram
 *   npm run demo -- --store <dir>      keeps each transcript's session in <dir>; a second run opens
 *                                      the stored state and replays only what is new
 *   npm run demo -- --record <file>    writes a flight recording of the replay and reads it back
 *                                      (then: npx rxslice inspect <file>)
 *
 * Exit code 0 when every transcript was replayed; 1 (with a message on stderr, nothing
 * replayed) when a path is missing or unreadable, or a directory holds no .jsonl file.
 */
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main';

const DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url));

await main({ argvPrefix: ['replay'], defaultTranscripts: [DATA_DIR] });
