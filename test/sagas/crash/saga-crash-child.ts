// Child process of the saga crash suite: opens a durable session (fsync 'always') on argv[2] with the
// crash saga registered, resumes the unfinished sagas, starts the planned sagas not yet started
// (argv[4]: comma-separated `<id>:<ok|fail>`), and exits 0 printing `done` once all have ended.
// External calls go to argv[3]. RXSLICE_SAGA_KILL_AFTER=k: SIGKILL itself right after its k-th committed event.
// RXSLICE_SAGA_HOLD=1: after `done`, hold the lock until stdin ends.
// Prints `ready <pid> <lastSeq>` once open, or `locked` and exits 3 when another process holds the directory.
import { writeSync } from 'node:fs';
import { createSession, type Session } from '../../../src/index';
import { jsonl } from '../../../src/jsonl/index';
import { crashSaga, externalCall, SagaLog, type LogEntry } from './saga-crash-slices';

const [dir, file, planArg] = process.argv.slice(2) as [string, string, string];
const hold = process.env['RXSLICE_SAGA_HOLD'] === '1';
const killAfter = Number(process.env['RXSLICE_SAGA_KILL_AFTER'] ?? 0);
let session: Session | undefined;
const def = crashSaga(file, () => session?.lastSeq ?? 0);
try {
  session = createSession({ slices: [SagaLog], sagas: [def], storage: jsonl({ dir, fsync: 'always', stale: 5000 }) });
} catch (e) {
  if ((e as { code?: string }).code === 'STORAGE_LOCKED') {
    writeSync(1, 'locked\n');
    process.exit(3);
  }
  writeSync(1, `error ${String(e)}\n`);
  process.exit(2);
}
const s = session;
writeSync(1, `ready ${process.pid} ${s.lastSeq}\n`);
let committed = 0;
if (killAfter > 0) {
  s.committed$.subscribe(() => {
    if (++committed === killAfter) process.kill(process.pid, 'SIGKILL');
  });
}
const started = new Set((s.read(SagaLog) as LogEntry[]).filter((e) => e.type === 'started').map((e) => e.sagaId));
let pending = 0;
const end = () => {
  if (--pending === 0) {
    writeSync(1, 'done\n');
    const exit = () => {
      s.dispose();
      process.exit(0);
    };
    // RXSLICE_SAGA_HOLD=1: keep the directory locked until the parent closes stdin (the two-process
    // test releases the holder only after the other process has been refused).
    if (hold) {
      process.stdin.on('data', () => undefined);
      process.stdin.on('end', exit);
    } else exit();
  }
};
pending++;
// Each resume is recorded before resumeSagas starts it: a resumed saga's steps and compensations
// run synchronously inside resumeSagas, and a kill there must find the resume already counted.
for (const p of s.read('rxslice/sagas') as readonly { sagaId: string }[]) externalCall(file, 'resume', p.sagaId, s.lastSeq);
for (const resumed of s.resumeSagas()) {
  pending++;
  resumed.result$.subscribe({ complete: end, error: end });
}
for (const item of planArg.split(',')) {
  const [id, kind] = item.split(':') as [string, string];
  if (started.has(id)) continue;
  pending++;
  s.runSaga(def, { fail: kind === 'fail' }, { sagaId: id }).subscribe({ complete: end, error: end });
}
end();
