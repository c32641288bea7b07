// `node --import tsx durable-batch-child.ts <dir>`: dispatches 2 events, then 3 more inside a
// durable batch, and SIGKILLs itself before the batch ends (its records are still held).
import { createSession } from '../../../src/index';
import { jsonl } from '../../../src/jsonl/index';
import { SESSION_INTERNALS } from '../../../src/session/internals';
import { Added, Total } from './durable-batch-slices';

const session = createSession({ slices: [Total], storage: jsonl({ dir: process.argv[2]!, fsync: 'always' }) });
session.dispatch(Added({ by: 1 }));
session.dispatch(Added({ by: 2 }));
session[SESSION_INTERNALS].durableBatch(() => {
  for (const by of [10, 20, 30]) session.dispatch(Added({ by }));
  process.kill(process.pid, 'SIGKILL');
});
