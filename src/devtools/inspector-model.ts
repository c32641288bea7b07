import { readRecording } from '../jsonl/read-recording';
import type { Recording, RecordedEnvelope } from '../jsonl/recording-types';
import type { SliceDef } from '../slices/reducer';
import { Snapshot, type SnapshotDiff } from '../snapshots/snapshot-ops';
import type { MachineDefinition } from '../machines/machine-definition';
import { targetlessTransitions, toMermaid } from '../machines/to-mermaid';

import type { EventPage, EventRow, InspectorDefinitions, MachineView, RecordingSummary, Series, TimelineEntry } from './inspector-types';

const MACHINE_PREFIX = 'machine/';
const EFFECT_PREFIX = 'rxslice.effect.';
const SAGA_PREFIX = 'rxslice.saga.';

/**
 * The read side of the inspector: a flight recording opened with its definitions, answering
 * the page's questions (event pages, state at a point, diffs, statecharts, timelines, series).
 * Plain JSON results, so the HTTP server only serialises them.
 *
 * @remarks Synchronous. Opening indexes the file (`readRecording`: O(file size), nothing
 * parsed); an event page parses only its rows; the first filtered page scans every envelope
 * once per filter (kept for the next pages). `stateAt` costs O(distance to the nearest snapshot).
 * @example
 * ```ts
 * const model = new InspectorModel('run.jsonl', { slices: [Plan], machines: [Phases] });
 * model.events({ offset: 0, limit: 50, type: 'plan/stepAdded' }).rows[0]?.seq;
 * model.state(42).slices['plan'];
 * ```
 */
export class InspectorModel {
  /** The recording the model reads. */
  readonly recording: Recording;
  private readonly machineDefs: Map<string, MachineDefinition<any, string, string>>;
  /** Seqs of the recorded envelopes, ascending (index → seq). */
  private readonly seqs: readonly number[];
  /** The last filter's matching seqs, as scanned up to seq `scanned`. */
  private filtered: { key: string; seqs: number[]; scanned: number } | undefined = undefined;
  /** The timeline as scanned up to seq `scanned` (entries still open stay in `open`). */
  private timelineScan: { open: Map<string, MutableEntry>; all: MutableEntry[]; scanned: number } | undefined = undefined;
  /** Counts of event types, scanned up to seq `scanned`. */
  private typeScan: { counts: Map<string, number>; scanned: number; sorted: { type: string; count: number }[] | undefined } | undefined = undefined;
  /** Called while a whole-recording scan or sampling runs: (what, done, total). Drives a progress bar. */
  onProgress: ((what: string, done: number, total: number) => void) | undefined = undefined;

  /** The envelopes after seq `afterSeq` (default: all), reporting progress every 4,096 of them. */
  private *scan(what: string, afterSeq = -Infinity): IterableIterator<RecordedEnvelope> {
    const total = this.recording.size;
    let n = 0;
    for (const env of this.recording.envelopes({ fromSeq: afterSeq + 1 })) {
      if (this.onProgress !== undefined && (++n & 4095) === 0) this.onProgress(what, n, total);
      yield env;
    }
    this.onProgress?.(what, total, total);
  }

  /**
   * Follows a recording still being written (`Recording.refresh`): indexes what was appended and
   * returns how many envelopes it added. The scans kept for types, filters and the timeline are
   * extended with the new envelopes only (at their next use), so following a live session costs
   * O(new envelopes), not O(recording).
   * @throws `RecordingError` as `Recording.refresh` does (nothing changes then).
   */
  refresh(): number {
    return this.recording.refresh();
  }

  /** Releases the recording's replay session (see `Recording.close`); the model stays usable. Idempotent. */
  close(): void {
    this.recording.close();
  }

  constructor(file: string, definitions: InspectorDefinitions) {
    this.recording = readRecording(file, { slices: definitions.slices, ...(definitions.session ? { session: definitions.session } : {}) });
    this.machineDefs = new Map((definitions.machines ?? []).map((m) => [`${MACHINE_PREFIX}${m.name}`, m]));
    this.sliceDefs = definitions.slices;
    this.seqs = this.recording.envelopeSeqs;
  }

  private readonly sliceDefs: readonly SliceDef<string, any>[];

  /**
   * The recording's figures (file, label, seq range, size, snapshot seqs, whether the tail is torn)
   * and the slices and machines its first state holds. O(slices); reads the state at `firstSeq`.
   */
  summary(): RecordingSummary {
    const r = this.recording;
    const base = r.stateAt(r.firstSeq);
    return {
      file: r.file,
      label: r.label,
      firstSeq: r.firstSeq,
      lastSeq: r.lastSeq,
      size: r.size,
      snapshotSeqs: r.snapshotSeqs,
      tornTail: r.tornTail !== undefined,
      slices: Object.entries(base.slices).map(([name, s]) => ({ name, policy: s.policy })),
      machines: Object.keys(base.slices).filter((n) => n.startsWith(MACHINE_PREFIX)),
    };
  }

  /** Event types in the recording with their counts, by count descending. Scans once (then only what {@link InspectorModel.refresh} added). */
  types(): readonly { type: string; count: number }[] {
    const scan = (this.typeScan ??= { counts: new Map(), scanned: -Infinity, sorted: undefined });
    for (const env of this.scan('event types', scan.scanned)) {
      scan.counts.set(env.event.type, (scan.counts.get(env.event.type) ?? 0) + 1);
      scan.scanned = env.seq;
      scan.sorted = undefined;
    }
    scan.sorted ??= [...scan.counts].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1));
    return scan.sorted;
  }

  /**
   * A page of the event list. `type` keeps events of that exact type; `text` keeps events whose
   * type, payload or meta (as JSON) contain it, case-insensitively.
   */
  events(query: { readonly offset: number; readonly limit: number; readonly type?: string | undefined; readonly text?: string | undefined }): EventPage {
    const offset = Math.max(0, Math.floor(query.offset));
    const limit = Math.min(1000, Math.max(0, Math.floor(query.limit)));
    const type = query.type || undefined;
    const text = query.text ? query.text.toLowerCase() : undefined;
    let seqs = this.seqs;
    if (type !== undefined || text !== undefined) {
      const key = JSON.stringify([type, text]);
      if (this.filtered?.key !== key) this.filtered = { key, seqs: [], scanned: -Infinity };
      const filtered = this.filtered;
      for (const env of this.scan('filter', filtered.scanned)) {
        filtered.scanned = env.seq;
        if (type !== undefined && env.event.type !== type) continue;
        if (text !== undefined && !JSON.stringify([env.event, env.meta]).toLowerCase().includes(text)) continue;
        filtered.seqs.push(env.seq);
      }
      seqs = filtered.seqs;
    }
    const rows: EventRow[] = [];
    const page = seqs.slice(offset, offset + limit);
    if (page.length > 0) {
      const wanted = new Set(page);
      for (const env of this.recording.envelopes({ fromSeq: page[0] as number, toSeq: page[page.length - 1] as number })) {
        if (wanted.has(env.seq)) rows.push(rowOf(env));
      }
    }
    return { total: seqs.length, offset, rows };
  }

  /** One envelope in full (event, meta, changed slices, effects). */
  envelope(seq: number): RecordedEnvelope | undefined {
    for (const env of this.recording.envelopes({ fromSeq: seq, toSeq: seq })) return env;
    return undefined;
  }

  /** Every slice's items after envelope `seq`. @throws `RecordingError` for a seq outside the recording. */
  state(seq: number): { readonly seq: number; readonly slices: Readonly<Record<string, { readonly policy: string; readonly items: readonly unknown[] }>> } {
    const json = this.recording.stateAt(seq).toJSON();
    return { seq, slices: Object.fromEntries(Object.entries(json.slices).map(([name, s]) => [name, { policy: s.policy, items: s.items }])) };
  }

  /** The difference between the states after `fromSeq` and after `toSeq` (`Snapshot.diff`). */
  diff(fromSeq: number, toSeq: number): SnapshotDiff {
    const before = this.recording.stateAt(fromSeq);
    return Snapshot.diff(before, this.recording.stateAt(toSeq));
  }

  /** Every statechart's Mermaid source and configuration after envelope `seq`. */
  machines(seq: number): readonly MachineView[] {
    const state = this.recording.stateAt(seq);
    const views: MachineView[] = [];
    for (const [slice, entry] of Object.entries(state.slices)) {
      if (!slice.startsWith(MACHINE_PREFIX)) continue;
      const snap = entry.items[entry.items.length - 1] as { configuration?: string[]; basicConfiguration?: string[]; done?: boolean } | undefined;
      const def = this.machineDefs.get(slice);
      views.push({
        name: slice.slice(MACHINE_PREFIX.length),
        slice,
        mermaid: def === undefined ? undefined : toMermaid(def, { targetless: 'omit' }),
        targetless: def === undefined ? [] : targetlessTransitions(def),
        configuration: snap?.configuration ?? [],
        basicConfiguration: snap?.basicConfiguration ?? [],
        done: snap?.done ?? false,
      });
    }
    return views;
  }

  /** Effect runs and sagas, from their lifecycle events (`rxslice.effect.*`, `rxslice.saga.*`), by start. Scans once (then only what {@link InspectorModel.refresh} added). */
  timeline(): readonly TimelineEntry[] {
    const scan = (this.timelineScan ??= { open: new Map<string, MutableEntry>(), all: [] as MutableEntry[], scanned: -Infinity });
    const { open, all } = scan;
    for (const env of this.scan('effects and sagas', scan.scanned)) {
      scan.scanned = env.seq;
      const type = env.event.type;
      const isEffect = type.startsWith(EFFECT_PREFIX);
      if (!isEffect && !type.startsWith(SAGA_PREFIX)) continue;
      const p = (env.event as { payload?: Record<string, unknown> }).payload ?? {};
      const what = type.slice(isEffect ? EFFECT_PREFIX.length : SAGA_PREFIX.length);
      const id = String(isEffect ? (p['effectId'] ?? p['id'] ?? '') : (p['sagaId'] ?? p['id'] ?? ''));
      const name = String(isEffect ? (p['effectType'] ?? '') : (p['saga'] ?? p['name'] ?? ''));
      if (what === 'dropped') {
        all.push(entryOf(isEffect ? 'effect' : 'saga', `dropped-${env.seq}`, name, env, 'dropped'));
        continue;
      }
      const key = `${isEffect ? 'e' : 's'}:${id}`;
      let entry = open.get(key);
      if (entry === undefined) {
        entry = entryOf(isEffect ? 'effect' : 'saga', id, name, env, 'running');
        open.set(key, entry);
        all.push(entry);
      }
      entry.events.push({ seq: env.seq, at: env.at, what });
      if (isEffect ? what === 'started' : what === 'stepStarted') entry.attempts++;
      if (what === 'retrying' || what === 'stepRetrying' || what === 'compensationRetrying') entry.retries++;
      if (what === 'compensated' || what === 'stepCompensated') entry.compensations++;
      const end = isEffect
        ? ['succeeded', 'failed', 'cancelled', 'compensated'].includes(what)
        : what === 'completed' || what === 'failed';
      // An effect's failure may be followed by its compensation: keep it open until then.
      if (end) {
        entry.outcome = what;
        entry.endSeq = env.seq;
        entry.endAt = env.at;
      }
    }
    return all;
  }

  /**
   * Samples the recording at up to `points` evenly spaced seqs (the first and last included):
   * slice sizes, numeric fields of single-item state slices, and machines' active states.
   * Cost: `points` × O(distance to the nearest snapshot).
   */
  series(points = 200): Series {
    const r = this.recording;
    const n = Math.max(2, Math.min(2000, Math.floor(points)));
    const span = r.lastSeq - r.firstSeq;
    const seqs: number[] = [];
    for (let i = 0; i < n; i++) {
      const seq = r.firstSeq + Math.round((span * i) / (n - 1));
      if (seqs[seqs.length - 1] !== seq) seqs.push(seq);
    }
    const at: number[] = [];
    const sizes: Record<string, number[]> = {};
    const numbers: Record<string, (number | null)[]> = {};
    const phases: Record<string, string[]> = {};
    seqs.forEach((seq, i) => {
      const snap = r.stateAt(seq);
      at.push(snap.at);
      for (const [name, entry] of Object.entries(snap.slices)) {
        (sizes[name] ??= new Array<number>(i).fill(0)).push(entry.items.length);
        const item = entry.items[entry.items.length - 1];
        if (name.startsWith(MACHINE_PREFIX)) {
          const basic = (item as { basicConfiguration?: string[] } | undefined)?.basicConfiguration ?? [];
          (phases[name.slice(MACHINE_PREFIX.length)] ??= new Array<string>(i).fill('')).push(basic.join(', '));
        } else if (entry.policy === 'state' && entry.items.length === 1 && item !== null && typeof item === 'object' && !Array.isArray(item)) {
          for (const [field, value] of Object.entries(item as Record<string, unknown>)) {
            if (typeof value === 'number' && Number.isFinite(value)) (numbers[`${name}.${field}`] ??= new Array<number | null>(i).fill(null)).push(value);
          }
        }
      }
      for (const list of Object.values(numbers)) if (list.length < i + 1) list.push(null);
      this.onProgress?.('samples', i + 1, seqs.length);
    });
    return { seqs, at, sizes, numbers, phases };
  }

  /** The slice definitions the model reads with. */
  get slices(): readonly SliceDef<string, any>[] {
    return this.sliceDefs;
  }
}

interface MutableEntry {
  kind: 'effect' | 'saga';
  id: string;
  name: string;
  startSeq: number;
  startAt: number;
  endSeq: number | undefined;
  endAt: number | undefined;
  attempts: number;
  retries: number;
  outcome: string;
  compensations: number;
  events: { seq: number; at: number; what: string }[];
}

function entryOf(kind: 'effect' | 'saga', id: string, name: string, env: RecordedEnvelope, outcome: string): MutableEntry {
  return {
    kind,
    id,
    name,
    startSeq: env.seq,
    startAt: env.at,
    endSeq: outcome === 'dropped' ? env.seq : undefined,
    endAt: outcome === 'dropped' ? env.at : undefined,
    attempts: 0,
    retries: 0,
    outcome,
    compensations: 0,
    events: outcome === 'dropped' ? [{ seq: env.seq, at: env.at, what: 'dropped' }] : [],
  };
}

function rowOf(env: RecordedEnvelope): EventRow {
  const source = (env.meta as { source?: unknown } | undefined)?.source;
  return {
    seq: env.seq,
    at: env.at,
    type: env.event.type,
    changed: env.changed,
    effects: env.effects.length,
    source: typeof source === 'string' ? source : undefined,
  };
}
