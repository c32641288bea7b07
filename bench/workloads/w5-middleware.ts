/**
 * Workload 5 — middleware: workload 1 with three pass-through middlewares, in each
 * contender's own middleware shape. The overhead ratio is measured inside each worker:
 * five alternating pairs of runs without and with the middleware (see `measurePaired`),
 * so both sides of the ratio see the same machine load, each pair followed by a pair on
 * fresh sessions (built right before the clock starts, no collection between).
 *
 * rxslice is measured twice: reducer middleware `(ctx, next) => next()` (runs around each
 * of the ten reducer calls per event) and operator middleware `map((envelope) => envelope)`
 * (runs once per event on the envelope stream).
 */
import { measurePaired, type Impl } from '../lib/measure';
import { SLICES, counterStores, type CounterMiddleware } from './counter-stores';
import { DISPATCHES, dispatchRun } from './w1-dispatch';
import type { Workload } from './workload';

const impl =
  (name: keyof typeof counterStores, middleware: CounterMiddleware = 'store'): Impl =>
  () =>
    measurePaired(
      { ops: DISPATCHES, unit: SLICES, timedRuns: 5, freshPairs: true },
      (ops, ready) => dispatchRun(() => counterStores[name]('none'), ops, ready),
      (ops, ready) => dispatchRun(() => counterStores[name](middleware), ops, ready),
    );

export const middlewareWorkload: Workload = {
  id: 'middleware',
  number: '5',
  title: 'Middleware: workload 1 with three pass-through middlewares',
  unit: 'ns/dispatch',
  columns: [
    { key: 'baseNs', label: 'without middleware (ns)', digits: 1 },
    { key: 'overhead', label: 'overhead (with / without)', digits: 2 },
    { key: 'freshOverhead', label: 'overhead, fresh sessions', digits: 2 },
  ],
  notes: [
    'Middleware shapes: rxslice reducer middleware `(ctx, next) => next()` (runs around each of the 10 reducer calls per event) or operator middleware `map((envelope) => envelope)` on the envelope stream, or event middleware `(envelope, next) => next(envelope)` (once per event); Redux/RTK store middleware `() => (next) => (action) => next(action)`; raw RxJS three `map` operators on the actions stream (plus `share()`); Zustand its documented custom-middleware wrapper around `set`; Elf has a single `preStoreUpdate` hook, so the three pass-throughs are composed in it; the plain loop wraps dispatch three times.',
  ],
  contenders: {
    plain: impl('plain'),
    rxslice: impl('rxslice', 'reducer'),
    'rxslice-operator': impl('rxslice', 'operator'),
    'rxslice-event': impl('rxslice', 'event'),
    rxjs: impl('rxjs'),
    redux: impl('redux'),
    rtk: impl('rtk'),
    elf: impl('elf'),
    zustand: impl('zustand'),
  },
};
