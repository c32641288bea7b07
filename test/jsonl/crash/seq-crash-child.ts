// Child process of the seq crash test: opens a durable session on argv[2] (fsync argv[3]) with a
// flight recorder on argv[4] (fsync 'always': each envelope is written before dispatch returns),
// and dispatches until it is killed: 9 of every 10 events change nothing stored (their seq is all
// the journal keeps of them). Prints `ready <lastSeq>` once open and `ack <seq>` after each dispatch
// returned (synchronously, on a pipe).
import { writeSync } from 'node:fs';
import { createSession } from '../../../src/index';
import { flightRecorder, jsonl, type JsonlFsync } from '../../../src/jsonl/index';
import { Called, Planned, SEQ_CRASH_SLICES } from './seq-crash-slices';

const [dir, fsync, recording] = process.argv.slice(2) as [string, JsonlFsync, string];
let session;
try {
  session = createSession({ slices: SEQ_CRASH_SLICES, events: [Called], storage: jsonl({ dir, fsync, stale: 5000 }), validation: 'off' });
} catch (e) {
  writeSync(1, `error ${String(e)}\n`);
  process.exit(2);
}
flightRecorder(session, { file: recording, fsync: 'always' });
writeSync(1, `ready ${session.lastSeq}\n`);
for (let n = 1; ; n++) {
  const env = n % 10 === 0 ? session.dispatch(Planned({ n })) : session.dispatch(Called({ n }));
  writeSync(1, `ack ${env.seq}\n`);
}
