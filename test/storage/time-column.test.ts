import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimeColumn } from '../../src/storage/time-column';

describe('TimeColumn: item times as 4-byte offsets, with a fallback for times that do not fit', () => {
  it('holds what a number[] holds through push, truncate, slice and toArray (fast-check model)', () => {
    const time = fc.oneof(
      fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }), // wall-clock ms near each other
      fc.integer({ min: 0, max: 1000 }), // virtual time
      // Fractional or far apart: the fallback. (-0 is a time of 0: a column may read it back as 0,
      // which `===` cannot tell apart, nor can JSON.)
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }).map((t) => (t === 0 ? 0 : t)),
    );
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), at: time, times: fc.integer({ min: 1, max: 40_000 }) }),
      fc.record({ kind: fc.constant('truncate' as const), to: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.option(time, { nil: undefined }), fc.array(op, { maxLength: 12 }), (first, ops) => {
        // Also from a column made with one time and no array (`TimeColumn.single`).
        const column = first === undefined ? new TimeColumn() : TimeColumn.single(first);
        const model: number[] = first === undefined ? [] : [first];
        expect(column.get(0)).toBe(model[0]);
        for (const o of ops) {
          if (o.kind === 'push') {
            for (let i = 0; i < o.times; i++) {
              column.push(o.at + i);
              model.push(o.at + i);
            }
          } else {
            const to = model.length === 0 ? 0 : o.to % (model.length + 1);
            column.truncate(to);
            model.length = to;
          }
          expect(column.length).toBe(model.length);
        }
        expect(column.toArray()).toEqual(model);
        const s = Math.floor(model.length / 3);
        expect(column.slice(s, model.length - 1).toArray()).toEqual(model.slice(s, model.length - 1));
        expect(column.get(model.length)).toBeUndefined();
        expect(column.get(-1)).toBeUndefined();
        expect(TimeColumn.from(model).toArray()).toEqual(model);
        const adopted = TimeColumn.adopt([...model]);
        adopted.push(1_700_000_000_123);
        expect(adopted.toArray()).toEqual([...model, 1_700_000_000_123]);
        expect(adopted.slice(1, adopted.length).toArray()).toEqual([...model, 1_700_000_000_123].slice(1));
      }),
      { numRuns: 60 },
    );
  });

  it('keeps exact values across the widening (a fractional time after integer ones)', () => {
    const c = new TimeColumn();
    c.push(1_700_000_000_000);
    c.push(1_700_000_000_005);
    c.push(0.5);
    c.push(1_700_000_000_006);
    expect(c.toArray()).toEqual([1_700_000_000_000, 1_700_000_000_005, 0.5, 1_700_000_000_006]);
    expect(TimeColumn.filled(3, 7).toArray()).toEqual([7, 7, 7]);
  });
});
