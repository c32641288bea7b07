import type { Impl, Unavailable } from '../lib/measure';

/** The contenders, in table order. `plain` is the floor every ratio is taken against. */
export const CONTENDERS = ['plain', 'rxslice', 'rxjs', 'redux', 'rtk', 'elf', 'zustand'] as const;

/** Display names of contenders (and of workload-specific variants). */
export const CONTENDER_LABELS: Readonly<Record<string, string>> = {
  plain: 'plain loop',
  'plain-durable': 'plain (durable by hand)',
  'plain-fsync': 'plain (write + fdatasync)',
  rxslice: 'rxslice',
  'rxslice-operator': 'rxslice (operator mw)',
  'rxslice-event': 'rxslice (event mw)',
  'rxslice-noschema': 'rxslice (no schema)',
  'rxslice-effect': 'rxslice (effect as data)',
  'rxslice-novalidation': 'rxslice (validation off)',
  'rxslice-from-scratch': 'rxslice (plain computed, from scratch)',
  'rxslice-batch': "rxslice (fsync 'batch')",
  'rxslice-always': "rxslice (fsync 'always')",
  'rxslice-never': "rxslice (fsync 'never')",
  'rxslice-compacted': 'rxslice (default compaction)',
  'rxslice-memory': 'rxslice (memory storage)',
  'rxslice-store': 'rxslice (--store)',
  'rxslice-inspect': 'rxslice (--inspect)',
  rxjs: 'raw RxJS',
  redux: 'Redux 5 + reselect',
  rtk: 'Redux Toolkit 2',
  elf: 'Elf 2',
  'elf-routed': 'Elf 2 (10-slice routing)',
  'zustand-derived': 'Zustand 5 (A, B, C in the state)',
  'rxslice-listener': 'rxslice (listener)',
  'rxslice-noclock': 'rxslice (no clock read)',
  'rxslice-arrays': 'rxslice (one array per slice)',
  'rxslice-listener-noclock': 'rxslice (listener, no clock read)',
  zustand: 'Zustand 5',
  'rxslice-snapshot': 'rxslice (from a snapshot)',
  emmett: 'Emmett (PostgreSQL)',
};

/** One benchmark workload: what it measures and one implementation per contender. */
export interface Workload {
  /** Stable id used on the worker's command line, e.g. `dispatch`. */
  readonly id: string;
  /** The workload number, e.g. `1` or `4w`. */
  readonly number: string;
  readonly title: string;
  /** Unit of the headline number, e.g. `ns/dispatch`. */
  readonly unit: string;
  /** Implementations by contender key (see {@link CONTENDERS}; variants such as `rxslice-operator` too). */
  readonly contenders: Readonly<Record<string, Impl | Unavailable>>;
  /** Extra numbers (keys of `Measurement.extra`, medians over rounds) shown as table columns. */
  readonly columns?: readonly { readonly key: string; readonly label: string; readonly digits?: number }[];
  /** At most this many rounds (for workloads whose one run takes tens of seconds). Default: every round. */
  readonly maxRounds?: number;
  /** Notes printed under the workload's table (how a contender was written, what is not measured). */
  readonly notes?: readonly string[];
}

/** True when the entry is a placeholder for a contender that cannot run yet. */
export const isUnavailable = (entry: Impl | Unavailable): entry is Unavailable => typeof entry === 'object';
