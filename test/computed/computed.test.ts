import { combineLatest, config, map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createSession, isRxSliceError, SliceNotRegisteredError, type RxSliceError } from '../../src/index';
import { computed } from '../../src/computed/computed';
import { computedFamily } from '../../src/computed/computed-family';
import { defineComputedFamily } from '../../src/computed/define-computed-family';
import { ComputedError, ComputedReadOnlyError, InvalidComputedError } from '../../src/computed/computed-errors';
import { defineComputed, type ComputedDef } from '../../src/computed/define-computed';
import { Both, Bumped, Count, counted, Noted, Notes } from './computed-fixtures';

const n = (count: readonly { n: number }[]): number => count.at(-1)?.n ?? 0;

describe('computed: laziness and memoization', () => {
  it('computes nothing until read or subscribed', () => {
    const project = counted((count: readonly { n: number }[]) => n(count) * 2);
    const Double = defineComputed('double', [Count], project);
    const session = createSession({ slices: [Count, Notes] });
    const double = computed(session, Double);
    session.dispatch(Bumped({ by: 1 }));
    expect(project.calls).toBe(0);
    expect(double.isStale).toBe(true);
    expect(double.latest()).toBe(2);
    expect(project.calls).toBe(1);
  });

  it('reads twice without a source change: project runs once; unrelated slices do not invalidate', () => {
    const project = counted((count: readonly { n: number }[]) => ({ doubled: n(count) * 2 }));
    const Double = defineComputed('double', [Count], project);
    const session = createSession({ slices: [Count, Notes] });
    const double = computed(session, Double);
    const first = double.latest();
    expect(double.latest()).toBe(first);
    session.dispatch(Noted({ text: 'unrelated' }));
    expect(double.isStale).toBe(false);
    expect(double.latest()).toBe(first);
    expect(project.calls).toBe(1);
    session.dispatch(Bumped({ by: 2 }));
    expect(double.isStale).toBe(true);
    expect(double.latest()).toEqual({ doubled: 4 });
    expect(project.calls).toBe(2);
  });

  it('returns the same handle for the same definition, and separate state per session', () => {
    const Double = defineComputed('double', [Count], (count) => n(count) * 2);
    const a = createSession({ slices: [Count] });
    const b = createSession({ slices: [Count] });
    expect(computed(a, Double)).toBe(computed(a, Double));
    a.dispatch(Bumped({ by: 5 }));
    expect(computed(a, Double).latest()).toBe(10);
    expect(computed(b, Double).latest()).toBe(0);
  });

  it('does not recompute dependents when an intermediate value is unchanged (equals cut-off)', () => {
    const Parity = defineComputed('parity', [Count], (count) => n(count) % 2);
    const label = counted((parity: number) => (parity === 0 ? 'even' : 'odd'));
    const Label = defineComputed('label', [Parity], label);
    const session = createSession({ slices: [Count] });
    const handle = computed(session, Label);
    const seen: string[] = [];
    handle.value$.subscribe((v) => seen.push(v));
    session.dispatch(Bumped({ by: 2 }));
    session.dispatch(Bumped({ by: 4 }));
    session.dispatch(Bumped({ by: 1 }));
    expect(seen).toEqual(['even', 'odd']);
    expect(label.calls).toBe(2);
  });

  it('uses the equals option to keep the previous reference and stay silent', () => {
    const Ids = defineComputed('ids', [Notes], (notes) => notes.map((x) => x.text.length), {
      equals: (a, b) => a.length === b.length && a.every((x, i) => x === b[i]),
    });
    const session = createSession({ slices: [Notes] });
    const emissions: (readonly number[])[] = [];
    computed(session, Ids).value$.subscribe((v) => emissions.push(v));
    session.slice(Notes).seed([{ text: 'ab' }]);
    session.slice(Notes).seed([{ text: 'cd' }]); // same lengths: equal by `equals`
    expect(emissions).toEqual([[], [2]]);
    expect(computed(session, Ids).latest()).toBe(emissions[1]);
  });
});

describe('computed: glitch freedom', () => {
  function diamond() {
    const left = counted((count: readonly { n: number }[]) => n(count) + 1);
    const right = counted((count: readonly { n: number }[]) => n(count) * 10);
    const A = defineComputed('a', [Count], left);
    const B = defineComputed('b', [Count], right);
    const top = counted((a: number, b: number) => `${a}/${b}`);
    const C = defineComputed('c', [A, B], top);
    return { A, B, C, left, right, top };
  }

  it('a plain combineLatest over the sources glitches (the bug this avoids)', () => {
    const session = createSession({ slices: [Count] });
    const s$ = session.slice(Count).all$.pipe(map(n));
    const seen: string[] = [];
    combineLatest([s$.pipe(map((x) => x + 1)), s$.pipe(map((x) => x * 10))]).subscribe(([a, b]) => seen.push(`${a}/${b}`));
    session.dispatch(Bumped({ by: 1 }));
    expect(seen).toEqual(['1/0', '2/0', '2/10']); // '2/0' mixes the new a with the old b
  });

  it('a diamond emits once per event, never from a half-updated set of sources', () => {
    const { C, left, right, top } = diamond();
    const session = createSession({ slices: [Count, Notes] });
    const seen: string[] = [];
    computed(session, C).value$.subscribe((v) => seen.push(v));
    session.dispatch(Bumped({ by: 1 }));
    session.dispatch(Bumped({ by: 2 }));
    session.dispatch(Noted({ text: 'unrelated' }));
    expect(seen).toEqual(['1/0', '2/10', '4/30']);
    expect([left.calls, right.calls, top.calls]).toEqual([3, 3, 3]);
  });

  it('a batch of several events emits once per computed slice, with the final values', () => {
    const { A, C, top } = diamond();
    const session = createSession({ slices: [Count, Notes] });
    const seen: string[] = [];
    const seenA: number[] = [];
    computed(session, C).value$.subscribe((v) => seen.push(v));
    computed(session, A).value$.subscribe((v) => seenA.push(v));
    session.batch(() => {
      session.dispatch(Bumped({ by: 1 }));
      session.dispatch(Noted({ text: 'x' }));
      session.dispatch(Bumped({ by: 1 }));
    });
    expect(seen).toEqual(['1/0', '3/20']);
    expect(seenA).toEqual([1, 3]);
    expect(top.calls).toBe(2);
  });

  it('a batch that changes a source and changes it back emits nothing', () => {
    const { C } = diamond();
    const session = createSession({ slices: [Count] });
    const seen: string[] = [];
    computed(session, C).value$.subscribe((v) => seen.push(v));
    session.batch(() => {
      session.dispatch(Bumped({ by: 1 }));
      expect(computed(session, C).latest()).toBe('2/10'); // reads inside a batch see the truth so far
      session.dispatch(Bumped({ by: -1 }));
    });
    expect(seen).toEqual(['1/0']);
  });

  it('a diamond over two slices changed by one event emits once', () => {
    const Sum = defineComputed('sum', [Count, Notes], (count, notes) => n(count) + notes.length);
    const Text = defineComputed('text', [Notes], (notes) => notes.map((x) => x.text).join(''));
    const project = counted((sum: number, text: string, count: readonly { n: number }[]) => `${sum}:${text}:${n(count)}`);
    const Top = defineComputed('top', [Sum, Text, Count], project);
    const session = createSession({ slices: [Count, Notes] });
    const seen: string[] = [];
    computed(session, Top).value$.subscribe((v) => seen.push(v));
    session.dispatch(Both({ by: 5, text: 'q' }));
    expect(seen).toEqual(['0::0', '6:q:5']);
    expect(project.calls).toBe(2);
  });

  it('a chain ten levels deep recomputes each level once per event and emits once per level', () => {
    const projects: { calls: number }[] = [];
    let level: ComputedDef<string, number> = defineComputed('level0', [Count], (count) => n(count));
    const levels = [level];
    for (let i = 1; i < 10; i++) {
      const p = counted((below: number) => below + 1);
      projects.push(p);
      level = defineComputed(`level${i}`, [level], p);
      levels.push(level);
    }
    // every level also depends on the slice directly: many paths from Count to the top
    const top = counted((count: readonly { n: number }[], deepest: number) => `${n(count)}+9=${deepest}`);
    const Top = defineComputed('top', [Count, level], top);
    const session = createSession({ slices: [Count] });
    const order: string[] = [];
    computed(session, Top).value$.subscribe((v) => order.push(`top:${v}`));
    computed(session, levels[3] as ComputedDef<string, number>).value$.subscribe((v) => order.push(`level3:${v}`));
    session.dispatch(Bumped({ by: 1 }));
    session.dispatch(Bumped({ by: 1 }));
    expect(order).toEqual(['top:0+9=9', 'level3:3', 'level3:4', 'top:1+9=10', 'level3:5', 'top:2+9=11']);
    expect(projects.every((p) => p.calls === 3)).toBe(true);
    expect(top.calls).toBe(3);
  });

  it('emits zero times when no source changed', () => {
    const { C, top } = diamond();
    const session = createSession({ slices: [Count, Notes] });
    const seen: string[] = [];
    computed(session, C).value$.subscribe((v) => seen.push(v));
    for (let i = 0; i < 5; i++) session.dispatch(Noted({ text: String(i) }));
    expect(seen).toEqual(['1/0']);
    expect(top.calls).toBe(1);
  });

  it('a slice subscriber reading the computed slice sees it consistent with the slice', () => {
    const { C } = diamond();
    const session = createSession({ slices: [Count] });
    const c = computed(session, C);
    const reads: string[] = [];
    session.slice(Count).all$.subscribe((count) => reads.push(`${n(count)}:${c.latest()}`));
    session.dispatch(Bumped({ by: 3 }));
    expect(reads).toEqual(['0:1/0', '3:4/30']);
  });

  it('stops recomputing after the last unsubscribe, and recomputes on the next read', () => {
    const { C, top } = diamond();
    const session = createSession({ slices: [Count] });
    const sub = computed(session, C).value$.subscribe();
    sub.unsubscribe();
    session.dispatch(Bumped({ by: 1 }));
    session.dispatch(Bumped({ by: 1 }));
    expect(top.calls).toBe(1);
    expect(computed(session, C).latest()).toBe('3/20');
    expect(top.calls).toBe(2);
  });

  it('lets a subscriber dispatch: the follow-up runs after the current commit and emits separately', () => {
    const { C } = diamond();
    const session = createSession({ slices: [Count] });
    const seen: string[] = [];
    computed(session, C).value$.subscribe((v) => {
      seen.push(v);
      if (v === '2/10') session.dispatch(Bumped({ by: 1 }));
    });
    session.dispatch(Bumped({ by: 1 }));
    expect(seen).toEqual(['1/0', '2/10', '3/20']);
  });
});

describe('computed: failures, invalidation and lifecycle', () => {
  it('reports a throwing project on errors$ and keeps the previous value; the session goes on', () => {
    const Checked = defineComputed('checked', [Count], (count) => {
      if (n(count) === 13) throw new Error('unlucky');
      return n(count);
    });
    const session = createSession({ slices: [Count] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const seen: number[] = [];
    const checked = computed(session, Checked);
    checked.value$.subscribe((v) => seen.push(v));
    session.dispatch(Bumped({ by: 13 }));
    expect(checked.latest()).toBe(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ComputedError);
    expect(errors[0]?.code).toBe('COMPUTED_FAILED');
    expect((errors[0] as ComputedError).computedName).toBe('checked');
    expect((errors[0]?.cause as Error).message).toBe('unlucky');
    checked.latest(); // memoized failure: not retried, not reported again
    expect(errors).toHaveLength(1);
    session.dispatch(Bumped({ by: 1 }));
    expect(seen).toEqual([0, 14]);
  });

  it('throws the ComputedError from latest() when project never succeeded, and recovers later', () => {
    const Strict = defineComputed('strict', [Count], (count) => {
      if (n(count) === 0) throw new Error('empty');
      return n(count);
    });
    const session = createSession({ slices: [Count] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const strict = computed(session, Strict);
    expect(() => strict.latest()).toThrow(ComputedError);
    const seen: number[] = [];
    strict.value$.subscribe((v) => seen.push(v)); // nothing to emit yet
    session.dispatch(Bumped({ by: 2 }));
    expect(seen).toEqual([2]);
    expect(errors.every((e) => isRxSliceError(e) && e.code === 'COMPUTED_FAILED')).toBe(true);
  });

  // Guard: a dependent of a computed slice that never produced a value holds that failure (it
  // is reported once, by the source), calls no project of its own, and computes once it can.
  it('a dependent of a computed slice that never succeeded throws its failure, and follows it once it recovers', () => {
    const Strict = defineComputed('strict', [Count], (count) => {
      if (n(count) === 0) throw new Error('empty');
      return n(count);
    });
    let projected = 0;
    const Above = defineComputed('above', [Strict, Count], (strict, count) => {
      projected++;
      return strict + n(count);
    });
    const session = createSession({ slices: [Count] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const above = computed(session, Above);
    const seen: number[] = [];
    above.value$.subscribe((v) => seen.push(v)); // nothing to emit yet
    expect(errors).toHaveLength(1);
    expect((errors[0] as ComputedError).computedName).toBe('strict');
    expect(() => above.latest()).toThrow(errors[0]);
    expect(projected).toBe(0);
    session.dispatch(Bumped({ by: 2 }));
    expect(seen).toEqual([4]);
    expect(projected).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it('invalidate() forces project to run again, and an observed slice emits if the value changed', () => {
    let external = 1;
    const Impure = defineComputed('impure', [Count], (count) => n(count) + external);
    const session = createSession({ slices: [Count] });
    const impure = computed(session, Impure);
    const seen: number[] = [];
    impure.value$.subscribe((v) => seen.push(v));
    external = 5;
    expect(impure.latest()).toBe(1);
    expect(impure.isStale).toBe(false);
    impure.invalidate();
    expect(seen).toEqual([1, 5]);
    expect(impure.version).toBe(2);
    impure.invalidate();
    expect(seen).toEqual([1, 5]);
  });

  it('is not part of snapshots; after restore it derives from the restored slices', () => {
    const Double = defineComputed('double', [Count], (count) => n(count) * 2);
    const session = createSession({ slices: [Count, Notes] });
    const double = computed(session, Double);
    session.dispatch(Bumped({ by: 2 }));
    expect(double.latest()).toBe(4);
    const snap = session.snapshot({ includeLogs: true });
    expect(Object.keys(snap.slices).sort()).toEqual(['count', 'notes']);
    expect(JSON.stringify(snap)).not.toContain('double');
    session.dispatch(Bumped({ by: 10 }));
    expect(double.latest()).toBe(24);
    session.restore(snap);
    expect(double.latest()).toBe(4);
  });

  it('throws SliceNotRegisteredError for a source slice the session does not have', () => {
    const Double = defineComputed('double', [Count], (count) => n(count) * 2);
    const session = createSession({ slices: [Notes] });
    expect(() => computed(session, Double)).toThrow(SliceNotRegisteredError);
  });

  it('rejects malformed declarations', () => {
    expect(() => defineComputed('', [Count], () => 1)).toThrow(InvalidComputedError);
    expect(() => defineComputed('bad', [{} as never], () => 1)).toThrow(/neither a slice/);
    const session = createSession({ slices: [Count] });
    expect(() => computed(session, Count as never)).toThrow(InvalidComputedError);
  });

  it('completes value$ when the session is disposed', () => {
    const Double = defineComputed('double', [Count], (count) => n(count) * 2);
    const session = createSession({ slices: [Count] });
    const events: string[] = [];
    computed(session, Double).value$.subscribe({ next: (v) => events.push(`n${v}`), complete: () => events.push('done') });
    session.dispose();
    expect(events).toEqual(['n0', 'done']);
    computed(session, Double).value$.subscribe({ complete: () => events.push('late') });
    expect(events).toEqual(['n0', 'done', 'late']);
  });
});

describe('computed: observers', () => {
  it('passes every source to project in order, for any number of sources', () => {
    const values = (count: readonly { n: number }[], notes: readonly unknown[]) => [n(count), notes.length];
    const One = defineComputed('one', [Count], (c) => [n(c)]);
    const Two = defineComputed('two', [Count, Notes], values);
    const Three = defineComputed('three', [Count, Notes, Two], (c, notes, two) => [n(c), notes.length, ...two]);
    const Four = defineComputed('four', [One, Count, Notes, Three], (one, c, notes, three) => [...one, n(c), notes.length, ...three]);
    const None = defineComputed('none', [], () => 'constant');
    const session = createSession({ slices: [Count, Notes] });
    session.dispatch(Bumped({ by: 3 }));
    session.dispatch(Noted({ text: 'a' }));
    expect(computed(session, Four).latest()).toEqual([3, 3, 1, 3, 1, 3, 1]);
    expect(computed(session, None).latest()).toBe('constant');
    session.dispatch(Noted({ text: 'b' }));
    expect(computed(session, Four).latest()).toEqual([3, 3, 2, 3, 2, 3, 2]);
  });

  it('an observer that unsubscribes another during an emission: the other hears nothing more', () => {
    const Double = defineComputed('double', [Count], (count) => n(count) * 2);
    const session = createSession({ slices: [Count] });
    const seen: string[] = [];
    const value$ = computed(session, Double).value$;
    const first = value$.subscribe((v) => {
      seen.push(`first ${v}`);
      if (v === 2) second.unsubscribe();
    });
    const second = value$.subscribe((v) => seen.push(`second ${v}`));
    session.dispatch(Bumped({ by: 1 }));
    session.dispatch(Bumped({ by: 1 }));
    expect(seen).toEqual(['first 0', 'second 0', 'first 2', 'first 4']);
    first.unsubscribe();
  });

  it('an observer that subscribes during an emission gets the current value once, then later ones', () => {
    const Double = defineComputed('double', [Count], (count) => n(count) * 2);
    const session = createSession({ slices: [Count] });
    const seen: string[] = [];
    const value$ = computed(session, Double).value$;
    value$.subscribe((v) => {
      seen.push(`first ${v}`);
      if (v === 2) value$.subscribe((w) => seen.push(`late ${w}`));
    });
    session.dispatch(Bumped({ by: 1 }));
    session.dispatch(Bumped({ by: 1 }));
    expect(seen).toEqual(['first 0', 'first 2', 'late 2', 'first 4', 'late 4']);
  });

  it("an observer whose equals throws is reported as an unhandled error (as RxJS does); the others and the session go on", async () => {
    const unhandled: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (e) => unhandled.push(e);
    try {
      // Per commit, equals runs once in the recomputation, then once per observer: make the
      // first observer's call throw.
      let calls = 0;
      let explode = false;
      const Double = defineComputed('double', [Count], (count) => n(count) * 2, {
        equals: (a, b) => {
          if (explode && ++calls === 2) throw new Error('equals exploded');
          return a === b;
        },
      });
      const session = createSession({ slices: [Count] });
      const seen: number[] = [];
      const value$ = computed(session, Double).value$;
      value$.subscribe(() => undefined);
      value$.subscribe((v) => seen.push(v));
      explode = true;
      expect(() => session.dispatch(Bumped({ by: 1 }))).not.toThrow();
      expect(seen).toEqual([0, 2]);
      expect(unhandled).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(unhandled).toEqual([new Error('equals exploded')]);
      explode = false;
      session.dispatch(Bumped({ by: 1 }));
      expect(seen).toEqual([0, 2, 4]);
    } finally {
      config.onUnhandledError = previous;
    }
  });
});

describe('computed: read-only', () => {
  const Double = defineComputed('double', [Count], (count) => n(count) * 2);

  it('cannot be registered as a slice of a session', () => {
    expect(() => createSession({ slices: [Count, Double as never] })).toThrow(ComputedReadOnlyError);
  });

  it('cannot be opened as a writable slice (so no reducer can be registered on it)', () => {
    const session = createSession({ slices: [Count] });
    try {
      session.slice(Double as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ComputedReadOnlyError);
      expect((e as ComputedReadOnlyError).code).toBe('COMPUTED_READ_ONLY');
      expect((e as Error).message).toMatch(/computed slice, which is read-only/);
    }
    expect(() => session.read(Double as never)).toThrow(ComputedReadOnlyError);
  });
});

describe('session.computed', () => {
  it('opens computed slices and families through the session', () => {
    const Double = defineComputed('double', [Count], (count) => n(count) * 2);
    const Plus = defineComputedFamily('plus', [Count], (k: number) => (count) => n(count) + k);
    const session = createSession({ slices: [Count] });
    expect(session.computed(Double)).toBe(computed(session, Double));
    expect(session.computed(Plus)).toBe(computedFamily(session, Plus));
    session.dispatch(Bumped({ by: 4 }));
    expect(session.computed(Double).latest()).toBe(8);
    expect(session.computed(Plus)(1).latest()).toBe(5);
  });
});
