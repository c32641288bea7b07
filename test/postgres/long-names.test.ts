// Issue 35: LISTEN/NOTIFY channel names are identifiers of at most 63 bytes. With a long schema
// and table prefix (up to 40 characters each), `<schema>_<prefix>_events` is longer: PostgreSQL
// cut it in LISTEN (two prefixes sharing their first 63 bytes shared a channel) and refused it in
// `pg_notify` (no wake-up was ever sent). The names are bounded now, with a hash of the full name.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSharedSession, type SharedSession } from '../../src/postgres/index';
import { channelName, MAX_IDENTIFIER_BYTES, sharedTables } from '../../src/postgres/schema';
import { NoteAdded, Notes } from '../fixtures';

const url = inject('databaseUrl');
const tag = randomUUID().replace(/-/g, '').slice(0, 12);
// 40 characters each, the longest allowed: the two prefixes differ only in their last character,
// past the 63rd byte of `<schema>_<prefix>_events`.
const schema = `rxt_long_schema_${tag}`.padEnd(40, 's');
const prefixA = `rxt_long_prefix_${tag}`.padEnd(39, 'p') + 'a';
const prefixB = `rxt_long_prefix_${tag}`.padEnd(39, 'p') + 'b';
/** Polling never finds anything here: only wake-ups and the catch-ups on joining do. */
const NO_POLLING = 3_600_000;
let admin: pg.Pool;

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
});

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

const until = async (check: () => boolean, what: string, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('channel names of long schemas and prefixes (issue 35)', () => {
  it('keeps names that fit as they were, and bounds longer ones to 63 bytes, distinct per prefix', () => {
    expect(sharedTables().channel).toBe('public_rxslice_events');
    expect(sharedTables().peersChannel).toBe('public_rxslice_peers');
    const fits = 'x'.repeat(MAX_IDENTIFIER_BYTES);
    expect(channelName(fits)).toBe(fits);
    const a = sharedTables(prefixA, schema);
    const b = sharedTables(prefixB, schema);
    const names = [a.channel, a.peersChannel, b.channel, b.peersChannel];
    for (const name of names) {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_IDENTIFIER_BYTES);
      expect(name).toMatch(/^[a-z0-9_]+$/);
    }
    expect(new Set(names).size).toBe(4);
    // (Cut to 63 bytes as PostgreSQL would, the two prefixes' names were one channel.)
    expect(`${schema}_${prefixA}_events`.slice(0, 63)).toBe(`${schema}_${prefixB}_events`.slice(0, 63));
    expect(channelName(`${schema}_${prefixA}_events`)).toBe(a.channel); // stable
  });

  it('wakes the other process of the session, and no listener of another prefix', async () => {
    const id = randomUUID();
    const tablesA = sharedTables(prefixA, schema);
    const tablesB = sharedTables(prefixB, schema);
    const heard: string[] = [];
    const spy = new pg.Client({ connectionString: url });
    await spy.connect();
    spy.on('notification', (m) => void (m.payload === id && heard.push(m.channel)));
    const open: SharedSession[] = [];
    const errors: unknown[] = [];
    // Each on a pool of its own: to the library, another process.
    const process_ = async (tablePrefix: string): Promise<SharedSession> => {
      const session = await createSharedSession({ slices: [Notes], sessionId: id, schema, tablePrefix, postgres: { connectionString: url, max: 3 }, pollIntervalMs: NO_POLLING, leaseRetryMs: 50, snapshotEvery: 0 });
      session.errors$.subscribe((e) => errors.push(e));
      open.push(session);
      return session;
    };
    try {
      await spy.query(`LISTEN "${tablesA.channel}"; LISTEN "${tablesB.channel}"`);
      const writer = await process_(prefixA);
      await writer.dispatch(NoteAdded({ id: 0, text: 'before the reader' }));
      const reader = await process_(prefixA);
      const other = await process_(prefixB); // the same session id, in the other prefix's tables
      expect(reader.lastSeq).toBe(1); // its catch-up on opening
      // The first commit reaches the reader by its wake-up, or by the catch-up on the writer's
      // answer to its join (sent on the peers channel) if the writer had not heard the join yet;
      // either way the writer knows the reader afterwards, so the second commit wakes it.
      for (const n of [1, 2]) {
        await writer.dispatch(NoteAdded({ id: n, text: `shared ${n}` }));
        await until(() => reader.lastSeq === n + 1, `the reader to read event ${n}`);
      }
      await spy.query('SELECT 1'); // every notification committed before this has reached the spy
      expect(heard).toContain(tablesA.channel);
      expect(heard).not.toContain(tablesB.channel);
      expect(other.lastSeq).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await Promise.all(open.map((s) => s.dispose()));
      await spy.end();
    }
  });
});
