import { InspectorModel } from '../devtools/inspector-model';
import type { InspectorDefinitions } from '../devtools/inspector-types';
import { progress, type CliIO, type Progress } from './progress';

const n = (v: number): string => v.toLocaleString('en-US');

/** What `rxslice stats` computes (printed as text, or as JSON with `--json`). */
export interface RecordingStats {
  readonly file: string;
  readonly label: string | undefined;
  readonly events: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly snapshots: number;
  readonly eventsByType: readonly { readonly type: string; readonly count: number }[];
  /** Slice sizes (items) at up to 11 evenly spaced seqs, first and last included. */
  readonly sizes: { readonly seqs: readonly number[]; readonly slices: Readonly<Record<string, readonly number[]>> };
  /** Effect runs and sagas by kind, name and outcome. */
  readonly outcomes: readonly { readonly kind: string; readonly name: string; readonly outcome: string; readonly count: number; readonly retries: number; readonly compensations: number }[];
}

/** Reads `file` once and computes its {@link RecordingStats}, with progress on `io.stderr` for long scans. */
export function recordingStats(file: string, definitions: InspectorDefinitions, io: CliIO): RecordingStats {
  const model = new InspectorModel(file, definitions);
  const bars = new Map<string, Progress>();
  model.onProgress = (what, done, total) => {
    let bar = bars.get(what);
    if (bar === undefined) bars.set(what, (bar = progress(io, what, total, what === 'samples' ? 'samples' : 'events')));
    bar.update(done);
  };
  const r = model.recording;
  const eventsByType = model.types();
  const series = model.series(11);
  const outcomes = new Map<string, { kind: string; name: string; outcome: string; count: number; retries: number; compensations: number }>();
  for (const e of model.timeline()) {
    const key = `${e.kind}\u0000${e.name}\u0000${e.outcome}`;
    const o = outcomes.get(key) ?? { kind: e.kind, name: e.name, outcome: e.outcome, count: 0, retries: 0, compensations: 0 };
    o.count++;
    o.retries += e.retries;
    o.compensations += e.compensations;
    outcomes.set(key, o);
  }
  for (const bar of bars.values()) bar.stop();
  return {
    file,
    label: r.label,
    events: r.size,
    firstSeq: r.firstSeq,
    lastSeq: r.lastSeq,
    snapshots: r.snapshotSeqs.length,
    eventsByType,
    sizes: { seqs: series.seqs, slices: series.sizes },
    outcomes: [...outcomes.values()],
  };
}

/** The text form of {@link RecordingStats}. */
export function formatStats(s: RecordingStats): string {
  const lines = [
    `${s.file}${s.label === undefined ? '' : ` (${s.label})`}`,
    `events      ${n(s.events)} (seq ${s.firstSeq}–${s.lastSeq}), ${s.snapshots} snapshots`,
    '',
    'events by type',
    ...s.eventsByType.map((t) => `  ${n(t.count).padStart(9)}  ${t.type}`),
    '',
    `slice sizes (items) at seq ${s.sizes.seqs.join(', ')}`,
  ];
  const width = Math.max(0, ...Object.keys(s.sizes.slices).map((k) => k.length));
  for (const [name, sizes] of Object.entries(s.sizes.slices)) lines.push(`  ${name.padEnd(width)}  ${sizes.map((v) => n(v)).join(' → ')}`);
  lines.push('', 'effects and sagas');
  if (s.outcomes.length === 0) lines.push('  none ran');
  for (const o of s.outcomes) {
    const extra = [o.retries > 0 ? `${n(o.retries)} retries` : '', o.compensations > 0 ? `${n(o.compensations)} compensations` : ''].filter(Boolean).join(', ');
    lines.push(`  ${o.kind.padEnd(6)} ${o.name}: ${n(o.count)} ${o.outcome}${extra ? ` (${extra})` : ''}`);
  }
  return lines.join('\n');
}
