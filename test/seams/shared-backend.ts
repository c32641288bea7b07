// The PostgreSQL backend of the seams matrix: a workload on a shared session.
import type pg from 'pg';
import { createSharedSession, type SharedSession } from '../../src/postgres/index';
import { quietly, sagasOf } from './harness';
import { fixedClock, type Driver, type Workload } from './workloads';

export interface SharedPlace {
  readonly url: string;
  readonly tablePrefix: string;
}

export async function openShared(w: Workload, place: SharedPlace, sessionId: string, extra: { snapshotEvery?: number } = {}): Promise<{ shared: SharedSession; driver: Driver }> {
  const o = w.options();
  const shared = await createSharedSession({
    slices: o.slices,
    sessionId,
    postgres: { connectionString: place.url, max: 3 },
    tablePrefix: place.tablePrefix,
    pollIntervalMs: 50,
    leaseRetryMs: 50,
    scheduler: fixedClock(),
    ...(o.events === undefined ? {} : { events: o.events }),
    ...(o.channels === undefined ? {} : { channels: o.channels }),
    ...(o.sagas === undefined ? {} : { sagas: o.sagas }),
    ...(w.setup === undefined ? {} : { install: w.setup }),
    ...(w.onLease === undefined ? {} : { onLease: w.onLease }),
    ...(extra.snapshotEvery === undefined ? { snapshotEvery: 0 } : { snapshotEvery: extra.snapshotEvery }),
  });
  const driver: Driver = {
    session: undefined,
    sideDir: undefined,
    dispatch: async (event) => void (await shared.dispatch(event)),
    quiet: () => quietly(() => ({ lastSeq: shared.lastSeq, sagas: sagasOf(shared) }), 30, () => shared.catchUp()),
    snapshotBackend: () => undefined,
  };
  return { shared, driver };
}

/**
 * A new session id whose log is the first `k` events of `from`'s: what a writer killed right after
 * appending event k leaves (each append is one transaction: no torn row, no half event).
 */
export async function copyLogPrefix(admin: pg.Pool, prefix: string, from: string, to: string, k: number): Promise<void> {
  await admin.query(`INSERT INTO "${prefix}_sessions" (session_id, last_seq) VALUES ($1, $2)`, [to, k]);
  await admin.query(
    `INSERT INTO "${prefix}_events" (session_id, seq, at, type, payload, meta, idempotency_key)
     SELECT $1, seq, at, type, payload, meta, idempotency_key FROM "${prefix}_events" WHERE session_id = $2 AND seq <= $3`,
    [to, from, k],
  );
}
