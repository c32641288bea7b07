/**
 * Workload 14c — opening a shared session of 100,000 events (~200 bytes each) in a fresh process:
 * with no snapshot (every event read and reduced), from a snapshot at the last event, and
 * Emmett's `aggregateStream` folding the same stream (it has no snapshots). Headline: ms from the
 * first query to the caught-up state. The logs are written once (kept between runs under fixed
 * names) and checked before every timed open.
 *
 * - rxslice: `createSharedSession` of the workload-14 slice (a log slice keeping the last 100
 *   events); it resolves once caught up. Without a snapshot it streams the log through one cursor.
 * - rxslice-snapshot: the same session id pattern, with a snapshot stored at seq 100,000.
 * - Emmett 0.42: `aggregateStream(stream, { evolve, initialState })` with the same fold (the last
 *   100 events in an array).
 */
import pg from 'pg';
import { check, type Measurement } from '../lib/measure';
import type { Workload } from './workload';
import { SentLog } from './w14-events';
import { createSharedSession } from '../../src/postgres/index';

export const OPEN_EVENTS = 100_000;
const url = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const PREFIX = 'bench14c';
const PLAIN_ID = 'open-100k';
const SNAPSHOT_ID = 'open-100k-snapshot';
const EMMETT_STREAM = 'bench14c-open-100k';
/** ~120 characters of text: with the id and the envelope, ~200 bytes per event. */
const TEXT = 'x'.repeat(120);

const open = (sessionId: string) =>
  createSharedSession({ slices: [SentLog], sessionId, postgres: { connectionString: url }, tablePrefix: PREFIX, snapshotEvery: 0, validation: 'off', freeze: false });

/** Writes the rxslice logs (and the snapshot) once; later runs find them. */
async function prepareRxslice(pool: pg.Pool): Promise<void> {
  const s = await open('setup');
  await s.dispose();
  for (const id of [PLAIN_ID, SNAPSHOT_ID]) {
    const { rows } = await pool.query<{ last_seq: string }>(`SELECT last_seq FROM ${PREFIX}_sessions WHERE session_id = $1`, [id]);
    if (Number(rows[0]?.last_seq ?? 0) === OPEN_EVENTS) continue;
    await pool.query(`DELETE FROM ${PREFIX}_events WHERE session_id = $1`, [id]);
    await pool.query(`DELETE FROM ${PREFIX}_snapshots WHERE session_id = $1`, [id]);
    await pool.query(
      `INSERT INTO ${PREFIX}_events (session_id, seq, at, type, payload, meta) SELECT $1, i, 1700000000000 + i, 'bench/sent', json_build_object('id', i, 'text', $2::text), '{}'::json FROM generate_series(1, $3::int) i`,
      [id, TEXT, OPEN_EVENTS],
    );
    await pool.query(`INSERT INTO ${PREFIX}_sessions (session_id, last_seq) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET last_seq = $2`, [id, OPEN_EVENTS]);
    await pool.query(`ANALYZE ${PREFIX}_events`);
    if (id === SNAPSHOT_ID) {
      const full = await open(id);
      await full.saveSnapshot();
      await full.dispose();
    }
  }
}

const rxslice = (sessionId: string, fromSnapshot: boolean) => async (): Promise<Measurement> => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    await prepareRxslice(pool);
  } finally {
    await pool.end();
  }
  const t0 = performance.now();
  const session = await open(sessionId);
  const ms = performance.now() - t0;
  try {
    check(session.lastSeq === OPEN_EVENTS, `opened at seq ${session.lastSeq}, expected ${OPEN_EVENTS}`);
    check(session.startup.fromSnapshot === (fromSnapshot ? OPEN_EVENTS : undefined), `started from snapshot ${String(session.startup.fromSnapshot)}`);
    const last = session.read(SentLog).at(-1) as { id: number } | undefined;
    check(last?.id === OPEN_EVENTS && session.read(SentLog).length === 100, 'the state holds the last 100 events');
  } finally {
    await session.dispose();
  }
  return { value: ms, extra: { ops: OPEN_EVENTS, eventsPerSecond: (OPEN_EVENTS * 1000) / ms } };
};

const emmett = async (): Promise<Measurement> => {
  const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
  const store = getPostgreSQLEventStore(url);
  try {
    const exists = await store.readStream(EMMETT_STREAM, { from: BigInt(OPEN_EVENTS), to: BigInt(OPEN_EVENTS) } as never).catch(() => undefined);
    if ((exists as { events?: unknown[] } | undefined)?.events?.length !== 1) {
      // Another workload may have emptied Emmett's tables: write the stream again, 1,000 events per append.
      for (let i = 1; i <= OPEN_EVENTS; i += 1_000) {
        await store.appendToStream(EMMETT_STREAM, Array.from({ length: 1_000 }, (_, k) => ({ type: 'bench/sent', data: { id: i + k, text: TEXT } })));
      }
    }
    type State = { items: { id: number; text: string }[] };
    type SentEvent = { type: 'bench/sent'; data: { id: number; text: string } };
    const t0 = performance.now();
    const { state, currentStreamVersion } = await store.aggregateStream<State, SentEvent>(EMMETT_STREAM, {
      initialState: () => ({ items: [] }),
      evolve: (s: State, event: SentEvent) => {
        s.items.push(event.data);
        if (s.items.length > 100) s.items.shift();
        return s;
      },
    });
    const ms = performance.now() - t0;
    check(Number(currentStreamVersion) === OPEN_EVENTS && state.items.at(-1)?.id === OPEN_EVENTS, `Emmett folded to version ${String(currentStreamVersion)}`);
    return { value: ms, extra: { ops: OPEN_EVENTS, eventsPerSecond: (OPEN_EVENTS * 1000) / ms } };
  } finally {
    await store.close();
  }
};

export const coldOpenWorkload: Workload = {
  id: 'shared-open',
  number: '14c',
  title: `Opening a shared session of ${OPEN_EVENTS.toLocaleString('en')} events in a fresh process (no snapshot / from a snapshot), beside Emmett's aggregateStream`,
  unit: 'ms',
  maxRounds: 5,
  columns: [{ key: 'eventsPerSecond', label: 'events/s', digits: 0 }],
  notes: [
    'The logs are written once (bulk INSERT for rxslice, `appendToStream` of 1,000-event batches for Emmett) and kept; each timed open is a fresh process. rxslice: from the first query to the caught-up state (`createSharedSession` resolved: tables checked, log read and reduced, LISTEN connected). Emmett: `aggregateStream` alone.',
    'Same fold on both sides: the last 100 events kept (rxslice: a log slice with a 100-event window; Emmett: an array in `evolve`).',
  ],
  contenders: { rxslice: rxslice(PLAIN_ID, false), 'rxslice-snapshot': rxslice(SNAPSHOT_ID, true), emmett },
};
