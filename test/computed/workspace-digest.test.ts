import { describe, expect, it } from 'vitest';
import { createSession, defineComputed } from '../../src/index';
import {
  DigestIndex,
  DigestIndexFromScratch,
  DigestIndexOf,
  WorkspaceSnapshots,
  WorkspaceSnapshotted,
  type WorkspaceSnapshot,
} from '../../examples/workspace-digest/digest-index';

/** The seed's workspace-digest index (examples/workspace-digest), folded incrementally. */

const snapshot = (step: number, digest = `d${step % 7}`): WorkspaceSnapshot => ({ digest, step, files: step });

describe('workspace digest index (incremental computed slice)', () => {
  it('answers a lookup after each append like the index rebuilt from scratch, folding each snapshot once', () => {
    let folded = 0;
    const Counted = defineComputed.incremental('countedDigestIndex', WorkspaceSnapshots, {
      init: () => DigestIndex.create(),
      fold: (index, snapshots) => {
        folded += snapshots.length;
        return DigestIndexOf.incremental?.fold(index, snapshots) as DigestIndex;
      },
    });
    const session = createSession({ slices: [WorkspaceSnapshots] });
    const index = session.computed(DigestIndexOf);
    const counted = session.computed(Counted);
    const scratch = session.computed(DigestIndexFromScratch);
    for (let step = 0; step < 50; step++) {
      session.dispatch(WorkspaceSnapshotted(snapshot(step)));
      const digest = `d${(step * 3) % 11}`;
      expect(index.latest().get(digest)).toEqual(scratch.latest().get(digest));
      expect(counted.latest().get(digest)).toEqual(scratch.latest().get(digest));
      expect(index.latest().size).toBe(step + 1);
    }
    expect(folded).toBe(50);
    expect(index.latest().get('d3')).toEqual(snapshot(3));
    expect(index.latest().get('missing')).toBeUndefined();
  });

  it('keeps every earlier value unchanged (values are immutable), and an older version adds by copying', () => {
    const session = createSession({ slices: [WorkspaceSnapshots] });
    const index = session.computed(DigestIndexOf);
    session.dispatch(WorkspaceSnapshotted(snapshot(0, 'a')));
    const first = index.latest();
    session.dispatch(WorkspaceSnapshotted(snapshot(1, 'b')));
    const second = index.latest();
    expect(first.get('b')).toBeUndefined();
    expect(second.get('b')).toEqual(snapshot(1, 'b'));
    expect(Object.isFrozen(second)).toBe(true);
    const branch = first.add([snapshot(9, 'c')]);
    expect([branch.get('b'), branch.get('c')?.step, second.get('c')]).toEqual([undefined, 9, undefined]);
  });
});
