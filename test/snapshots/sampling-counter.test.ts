import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, EvictionPolicy, SliceWindow, snapshotFromJSON } from '../../src/index';

// Found by the seams matrix (test/seams): a PostgreSQL process that starts from a stored snapshot
// sampled differently from the processes that replayed the whole log. A seeded sampling window
// draws for the n-th appended item from (seed, n); a snapshot's JSON kept the items but not n.
const Sampled = defineEvent('sample/taken', z.object({ n: z.number().int() }));
const Reservoir = defineSlice('reservoir', {
  policy: 'log',
  schema: z.number(),
  window: SliceWindow.count(3, { eviction: EvictionPolicy.sampling({ seed: 42 }) }),
  reducers: ({ on }) => [on(Sampled, (_v, e) => append(e.payload.n))],
});

describe('the appended count of a slice in snapshot JSON', () => {
  it('survives a JSON round trip, so a restored sampling window draws as the original goes on drawing', () => {
    const original = createSession({ slices: [Reservoir] });
    for (let n = 1; n <= 8; n++) original.dispatch(Sampled({ n }));
    const json = JSON.parse(JSON.stringify(original.snapshot({ includeLogs: true }).toJSON()));
    expect(json.slices.reservoir.appended).toBe(8);
    const copy = createSession({ slices: [Reservoir] });
    copy.restore(snapshotFromJSON(json, [Reservoir]));
    expect(copy.slice(Reservoir).all()).toEqual(original.slice(Reservoir).all());
    for (let n = 9; n <= 20; n++) {
      original.dispatch(Sampled({ n }));
      copy.dispatch(Sampled({ n }));
      expect(copy.slice(Reservoir).all()).toEqual(original.slice(Reservoir).all());
    }
  });

  it('is written only when it says more than the items (a slice that never dropped an item writes none)', () => {
    const s = createSession({ slices: [Reservoir] });
    s.dispatch(Sampled({ n: 1 }));
    expect(s.snapshot({ includeLogs: true }).toJSON().slices['reservoir']).toEqual({ policy: 'log', schemaVersion: 1, items: [1] });
  });

  it('is refused when below the number of items or not an integer', () => {
    const s = createSession({ slices: [Reservoir] });
    s.dispatch(Sampled({ n: 1 }));
    s.dispatch(Sampled({ n: 2 }));
    const json = s.snapshot({ includeLogs: true }).toJSON();
    for (const appended of [1, 2.5, -1, 'x']) {
      expect(() => snapshotFromJSON({ ...json, slices: { reservoir: { ...json.slices['reservoir'], appended } } }, [Reservoir])).toThrow(/appended/);
    }
  });
});
