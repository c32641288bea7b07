// A poller in a child process, for test/jsonl/signals/signal-processes.test.ts.
//   node --import tsx signal-child.ts <dir> watch <total> [delayMs]  handles signals with watch() until processed/ holds <total>
//                                                        (each handler takes delayMs, default 1 to 4 ms)
//   node --import tsx signal-child.ts <dir> hang           claims the first signal, says so, and never finishes
// Prints one line per step: `ready` (watching), `handling <id>`, `handled <id>`, `archived <id>`, `claimed <id>`, `error <message>`.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createSignalDirectory } from '../../../src/jsonl/index';
import { Numbered } from './signal-fixtures';

const [dir, mode, total, delayMs] = process.argv.slice(2) as [string, string, string | undefined, string | undefined];
const signals = createSignalDirectory({ dir, channel: Numbered });
const say = (line: string): void => void process.stdout.write(`${line}\n`);
signals.errors$.subscribe((e) => say(`error ${e.message}`));

if (mode === 'hang') {
  const claimed = signals.claimNext();
  say(claimed === undefined ? 'claimed none' : `claimed ${claimed.id}`);
  setInterval(() => {}, 1000); // handling forever, until SIGKILL
} else {
  const done = (): boolean => readdirSync(join(dir, 'processed')).length >= Number(total);
  const sub = signals.watch(
    async (s) => {
      say(`handling ${s.id}`);
      await new Promise((r) => setTimeout(r, delayMs === undefined ? 1 + (s.signal.n % 4) : Number(delayMs))); // some work, so the two pollers interleave
      say(`handled ${s.id}`);
    },
    { pollIntervalMs: 20 },
  ).subscribe({
    next: (s) => say(`archived ${s.id}`),
    error: (e: Error) => {
      say(`error ${e.message}`);
      process.exit(1);
    },
  });
  say('ready');
  const check = setInterval(() => {
    if (!done()) return;
    clearInterval(check);
    sub.unsubscribe();
    signals.dispose();
    say('finished');
  }, 20);
}
