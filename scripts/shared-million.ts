// A session with 1,000,000 events of history (rows made by SQL), one full replay (which stores a snapshot),
// then three starts from that snapshot with 500 events after it: the startup times of the
// shared-sessions issue ("< 1 s for a session with 1M events of history").  npm run shared:million

import pg from 'pg';
import { createSharedSession } from '../src/postgres/index';
import { SentLog } from '../bench/workloads/w14-events';
const url = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const prefix = 'rx1m';
const sessionId = 'million-' + Date.now();
const admin = new pg.Client({ connectionString: url }); await admin.connect();
const opts = { slices: [SentLog], sessionId, postgres: { connectionString: url }, tablePrefix: prefix, snapshotEvery: 0, validation: 'off' as const, freeze: false };
const s0 = await createSharedSession(opts); await s0.dispose();
let t = Date.now();
await admin.query(`INSERT INTO ${prefix}_events (session_id, seq, at, type, payload, meta) SELECT $1, g, g, 'bench/sent', json_build_object('id', g), '{}' FROM generate_series(1, 1000000) g`, [sessionId]);
await admin.query(`UPDATE ${prefix}_sessions SET last_seq = 1000000 WHERE session_id = $1`, [sessionId]);
console.log('inserted 1M rows in', Date.now() - t, 'ms');
t = Date.now();
const a = await createSharedSession(opts);
console.log('full replay start:', JSON.stringify(a.startup), 'wall', Date.now() - t);
await a.saveSnapshot();
await a.dispose();
await admin.query(`INSERT INTO ${prefix}_events (session_id, seq, at, type, payload, meta) SELECT $1, g, g, 'bench/sent', json_build_object('id', g), '{}' FROM generate_series(1000001, 1000500) g`, [sessionId]);
await admin.query(`UPDATE ${prefix}_sessions SET last_seq = 1000500 WHERE session_id = $1`, [sessionId]);
for (let i = 0; i < 3; i++) {
  t = Date.now();
  const b = await createSharedSession(opts);
  console.log('start from snapshot:', JSON.stringify(b.startup), 'wall', Date.now() - t, 'ms; lastSeq', b.lastSeq, 'items', b.read(SentLog).length);
  await b.dispose();
}
for (const table of ['events', 'sessions', 'snapshots', 'schema_version']) await admin.query(`DROP TABLE IF EXISTS ${prefix}_${table}`);
await admin.end();
