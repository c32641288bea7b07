import type { SchedulerLike } from 'rxjs';
import type { Recording } from '../jsonl/recording-types';
import type { SliceDef } from '../slices/reducer';
import type { Session } from '../session/session-types';
import type { MachineDefinition } from '../machines/machine-definition';
import type { TargetlessTransition } from '../machines/to-mermaid';

/**
 * What the inspector needs to rebuild a recording's state: the recorded session's slice
 * definitions, the session its envelopes replay through (as `readRecording` takes it), and the
 * statecharts installed in it (drawn from their Mermaid export).
 */
export interface InspectorDefinitions {
  /** The slice definitions of the recorded session (to read its snapshots and reduce its events). */
  readonly slices: readonly SliceDef<string, any>[];
  /** As `ReadRecordingOptions.session`: needed when the recorded session had reducers its slices do not carry (an installed statechart). */
  readonly session?: (scheduler: SchedulerLike) => Session;
  /** The statecharts of the recorded session, to draw them (`MachineView.mermaid`). */
  readonly machines?: readonly MachineDefinition<any, string, string>[];
}

/** One row of the event list. */
export interface EventRow {
  /** The envelope's seq. */
  readonly seq: number;
  /** Scheduler time of the envelope (ms). */
  readonly at: number;
  /** The event type. */
  readonly type: string;
  /** Slices the event changed. */
  readonly changed: readonly string[];
  /** Effects the event's reducers requested. */
  readonly effects: number;
  /** `meta.source`, when set. */
  readonly source: string | undefined;
}

/** A page of the (filtered) event list. */
export interface EventPage {
  /** Rows matching the filter in the whole recording. */
  readonly total: number;
  /** Index of the first row among the matching rows (0-based). */
  readonly offset: number;
  /** The page's rows, in seq order. */
  readonly rows: readonly EventRow[];
}

/** A statechart at one point: its Mermaid source and active configuration. */
export interface MachineView {
  /** The machine's name. */
  readonly name: string;
  /** The slice holding the machine's snapshot (`machine/<name>`). */
  readonly slice: string;
  /**
   * `toMermaid(definition, { targetless: 'omit' })`, or undefined when the definition was not
   * given: the targetless transitions are in {@link MachineView.targetless} instead.
   */
  readonly mermaid: string | undefined;
  /** The machine's targetless transitions (`targetlessTransitions(definition)`); empty when the definition was not given. */
  readonly targetless: readonly TargetlessTransition[];
  /** Active state ids (all, document order); empty when the machine had not started. */
  readonly configuration: readonly string[];
  /** Active atomic and final states. */
  readonly basicConfiguration: readonly string[];
  /** True once the machine reached a final state at its top level (its snapshot's `done`). */
  readonly done: boolean;
}

/** One effect run or saga, from its lifecycle events. */
export interface TimelineEntry {
  /** Whether the entry is an effect run or a saga. */
  readonly kind: 'effect' | 'saga';
  /** Effect id or saga id. */
  readonly id: string;
  /** Effect type or saga name. */
  readonly name: string;
  /** Seq of the event that started it. */
  readonly startSeq: number;
  /** Scheduler time (ms) it started. */
  readonly startAt: number;
  /** Seq of the event that ended it; undefined while running when the recording ends. */
  readonly endSeq: number | undefined;
  /** Scheduler time (ms) it ended; undefined while running when the recording ends. */
  readonly endAt: number | undefined;
  /** Attempts started (effects) or steps started (sagas). */
  readonly attempts: number;
  /** Retries: of the effect, or of the saga's steps and compensations. */
  readonly retries: number;
  /** `succeeded`, `failed`, `compensated`, `cancelled`, `completed` (sagas), or `running` when the recording ends first. */
  readonly outcome: string;
  /** Compensations run (effects: 1 when compensated; sagas: steps compensated). */
  readonly compensations: number;
  /** Every lifecycle event of the run, in order: seq and the last part of its type. */
  readonly events: readonly { readonly seq: number; readonly at: number; readonly what: string }[];
}

/** Values sampled over the recording, for charts. */
export interface Series {
  /** The sampled seqs, ascending. */
  readonly seqs: readonly number[];
  /** Scheduler time (ms) at each sampled seq. */
  readonly at: readonly number[];
  /** Items per slice at each sampled seq. */
  readonly sizes: Readonly<Record<string, readonly number[]>>;
  /** Numeric fields of single-item state slices (`slice.field`) at each sampled seq: token counters and the like. */
  readonly numbers: Readonly<Record<string, readonly (number | null)[]>>;
  /** The active atomic states (joined by `, `) of each machine at each sampled seq. */
  readonly phases: Readonly<Record<string, readonly string[]>>;
}

/** What the inspector shows first: the recording's figures (see {@link Recording}) and what it holds. */
export interface RecordingSummary extends Pick<Recording, 'file' | 'label' | 'firstSeq' | 'lastSeq' | 'size' | 'snapshotSeqs'> {
  /** Whether a torn last line was dropped. */
  readonly tornTail: boolean;
  /** The slices of the recording's first state, with their policy (`state` or `log`). */
  readonly slices: readonly { readonly name: string; readonly policy: string }[];
  /** The slices holding statecharts (`machine/<name>`). */
  readonly machines: readonly string[];
}
