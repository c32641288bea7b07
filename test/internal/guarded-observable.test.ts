import { firstValueFrom, map, of, Subject, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { GuardedObservable } from '../../src/internal/guarded-observable';
import { deepFreeze } from '../../src/internal/freeze';

const guardedOf = <T>(values: T[], reported: [string, unknown][]) =>
  new GuardedObservable<T>('test$', (source, error) => reported.push([source, error]), (subscriber) => of(...values).subscribe(subscriber));

describe('GuardedObservable', () => {
  it('reports throwing next/complete callbacks and error notifications without an error callback', () => {
    const reported: [string, unknown][] = [];
    const seen: number[] = [];
    guardedOf([1, 2], reported).subscribe((v) => {
      seen.push(v);
      throw new Error(`next ${v}`);
    });
    guardedOf([1], reported).subscribe({ complete: () => { throw new Error('complete'); } });
    guardedOf([1], reported).pipe(map(() => { throw new Error('operator'); })).subscribe();
    expect(seen).toEqual([1, 2]);
    expect(reported.map(([s, e]) => `${s}: ${(e as Error).message}`)).toEqual(['test$: next 1', 'test$: next 2', 'test$: complete', 'test$: operator']);
  });

  it('keeps observer methods bound to their object, and leaves RxJS subscribers (firstValueFrom, take, subjects) alone', async () => {
    const reported: [string, unknown][] = [];
    const observer = { total: 0, next(this: { total: number }, v: number) { this.total += v; } };
    guardedOf([1, 2, 3], reported).subscribe(observer);
    expect(observer.total).toBe(6);
    expect(await firstValueFrom(guardedOf([7, 8], reported))).toBe(7);
    const out = new Subject<number>();
    const got: number[] = [];
    out.subscribe((v) => got.push(v));
    guardedOf([4, 5], reported).pipe(take(1)).subscribe(out);
    expect(got).toEqual([4]);
    expect(reported).toEqual([]);
  });
});

describe('deepFreeze', () => {
  it('freezes any depth without recursion', () => {
    let deep: Record<string, unknown> = { leaf: [1, { x: 1 }] };
    const root = deep;
    for (let i = 0; i < 100_000; i++) {
      const next = { d: {} as Record<string, unknown> };
      deep['d'] = next;
      deep = next;
    }
    expect(deepFreeze(root)).toBe(root);
    expect(Object.isFrozen(deep)).toBe(true);
    expect(Object.isFrozen((root['leaf'] as unknown[])[1])).toBe(true);
  });
});
