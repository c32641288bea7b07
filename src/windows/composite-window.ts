import type { EvictionDecision, EvictionPolicy, SliceWindowPolicy, WindowContext, WindowMemo } from '../slices/window-contract';
import { InvalidWindowError } from './invalid-window-error';
import { spare, union, unite } from './index-decisions';
import { evictPlanned, isPlannable, PARTS, PLAN, PROTECTS, SAMPLES, TIMED, type Plannable, type Planned } from './window-plan';

/** What a composite remembers: the state of each of its plannable windows (`undefined` for the others). */
interface CompositeState {
  readonly owner: object;
  readonly parts: readonly unknown[];
}

type Composite<TItem> = Plannable<TItem> & { readonly [PARTS]: readonly SliceWindowPolicy<TItem>[] };

/** `SliceWindow.composite`: see {@link SliceWindow} in slice-window.ts. */
export function composite<TItem = unknown>(...windows: readonly SliceWindowPolicy<TItem>[]): SliceWindowPolicy<TItem> {
  const description = `composite(${windows.map((w) => w.description).join(', ')})`;
  // Composites nest flat: composite(a, composite(b, c)) is composite(a, b, c).
  const flat = windows.flatMap((w) => (PARTS in w ? (w as Composite<TItem>)[PARTS] : [w]));
  const protecting = flat.some((w) => PROTECTS in w);
  if (protecting && flat.some((w) => SAMPLES in w)) {
    throw new InvalidWindowError(
      description,
      'a sampling count window draws its sample from the whole slice, so it cannot share the slice with a predicate window. Use a FIFO, LIFO or priority count window beside the predicate.',
    );
  }
  const window: Composite<TItem> = {
    description,
    [PARTS]: flat,
    evict: (view, ctx) => evictPlanned(window, view, ctx),
    // The policy goes to every window inside that takes one; a composite of none has no choice to make.
    ...(windows.some((w) => w.withEviction !== undefined)
      ? {
          withEviction: (next: EvictionPolicy<TItem>) => {
            // Time windows keep their rule beside windows that choose; alone, they check the policy.
            const choosers = windows.some((w) => w.withEviction !== undefined && !(TIMED in w));
            return composite(...windows.map((w) => (w.withEviction === undefined || (choosers && TIMED in w) ? w : w.withEviction(next))));
          },
        }
      : {}),
    [PLAN](view, ctx, memo) {
      const state = memo?.state as CompositeState | undefined;
      const parts = state !== undefined && state.owner === window ? state.parts : undefined;
      // The windows inside neither see nor set the slice's memo: each gets its own part of it.
      const inner: WindowContext = { now: ctx.now, seq: ctx.seq, appended: ctx.appended, timeAt: (i) => ctx.timeAt(i) };
      const planned: (Planned | undefined)[] = [];
      const evicted: EvictionDecision[] = [];
      const kept: (readonly number[])[] = [];
      let bounding = false;
      for (let k = 0; k < flat.length; k++) {
        const w = flat[k] as SliceWindowPolicy<TItem>;
        let p: Planned | undefined;
        if (isPlannable(w)) {
          const part = parts?.[k];
          p = w[PLAN](view, inner, part === undefined ? undefined : { state: part, stableBelow: (memo as WindowMemo).stableBelow, changed: (memo as WindowMemo).changed });
        }
        planned.push(p);
        if (p?.protected !== undefined) {
          kept.push(p.protected);
          continue;
        }
        bounding = true;
        const d = p?.evicted ?? w.evict(view, inner);
        if (d.kind !== 'none') evicted.push(d);
      }
      const after = (applied: EvictionDecision, size: number): CompositeState => ({ owner: window, parts: planned.map((p) => p?.after(applied, size)) });
      // Kept: what the bounding windows keep together, plus what any predicate window protects.
      if (kept.length === 0) return { evicted: unite(evicted, view.size), after };
      if (!bounding) return { protected: union(kept), after };
      return { evicted: spare(unite(evicted, view.size), union(kept), view.size), after };
    },
  };
  return window;
}
