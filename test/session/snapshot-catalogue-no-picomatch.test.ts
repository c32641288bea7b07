// The core entry installs only rxjs, zod and immer: the session's snapshot catalogue must find
// snapshots by tag glob without loading picomatch (an optional peer of rxslice/snapshot-store).
import { describe, expect, it, vi } from 'vitest';

vi.mock('picomatch', () => {
  throw new Error('the core loaded picomatch');
});

describe('session.findSnapshots without picomatch', () => {
  it('the core entry loads, and finds by tag glob', async () => {
    const { createSession, defineSlice } = await import('../../src/index');
    const { z } = await import('zod');
    const Plan = defineSlice('plan', { policy: 'state', schema: z.string() });
    const session = createSession({ slices: [Plan] });
    session.snapshot({ tag: 'tool:search' });
    session.snapshot({ tag: 'plan:x' });
    expect((await session.findSnapshots({ tag: '{tool,x}:*' })).map((i) => i.tag)).toEqual(['tool:search']);
  });

  it('(the mock works: the snapshot store entry does load picomatch)', async () => {
    await expect(import('../../src/snapshot-store/index')).rejects.toThrow(/error when mocking|picomatch/);
  });
});
