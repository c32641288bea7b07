// A process that locks a directory (argv[2]) and releases it, printing each step of the lock
// as it is made: `step <n> <name>`. At step `argv[4]` it SIGKILLs or SIGSTOPs itself
// (`argv[3]`: 'kill' | 'stop'); with 'hold-kill' it SIGKILLs itself once the lock is held.
// Then it prints `acquired`, `released`, or `locked` when another writer holds the lock.
import { writeSync } from 'node:fs';
import { lockDirectory } from '../../../src/jsonl/directory-lock';

const [dir = '', mode = 'none', at = '0'] = process.argv.slice(2);
const say = (line: string): void => void writeSync(1, `${line}\n`);
let n = 0;
const onStep = (name: string): void => {
  say(`step ${++n} ${name}`);
  if (n === Number(at)) process.kill(process.pid, mode === 'stop' ? 'SIGSTOP' : 'SIGKILL');
};
try {
  const lock = lockDirectory(dir, { stale: 10_000, onCompromised: () => say('compromised'), onStep });
  say('acquired');
  if (mode === 'hold-kill') process.kill(process.pid, 'SIGKILL');
  lock.release();
  say('released');
} catch (e) {
  say((e as { code?: string }).code === 'STORAGE_LOCKED' ? 'locked' : `error ${String(e)}`);
}
