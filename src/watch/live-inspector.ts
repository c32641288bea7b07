/**
 * The live inspector of `rxslice watch --inspect`: each watched transcript's session is recorded
 * (a flight recording in a private temporary directory) and read by an `InspectorModel` that
 * follows the recording; the inspector page is told of every commit through server-sent events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Subject, type Observable } from 'rxjs';
import { InspectorModel } from '../devtools/inspector-model';
import type { InspectorChange, InspectorSessionInfo, InspectorSource } from '../devtools/inspector-server';
import { flightRecorder, type FlightRecorder } from '../jsonl/index';
import type { WatchedTranscript } from './watched-transcript';
import { watchDefinitions } from './watch-session';

/** The header label of the recordings the live inspector writes. */
export const LIVE_RECORDING_LABEL = 'rxslice.watch';

interface Entry {
  readonly id: string;
  readonly watched: WatchedTranscript;
  /** Its number in the recordings' file names. */
  readonly n: number;
  recorder: FlightRecorder;
  model: InspectorModel;
  generation: number;
  closed: boolean;
}

/**
 * The sessions of a running watch as an `InspectorSource` (serve it with `serveInspector`).
 * Wire it to `watchTranscripts`: `onSession` → {@link attach}, `onUpdate` → {@link update},
 * `onNotice` → {@link noticed}.
 *
 * @remarks Each session gets a flight recorder (`snapshotEvery` 1000) writing to a file in a
 * temporary directory of its own (mode 0700, removed by {@link close}; transcripts hold people's
 * code and conversations, so nothing is written elsewhere). After each update the recorder is
 * flushed and the model reads what was appended (`InspectorModel.refresh`, O(new events)), then
 * `changes$` emits. A file that starts over gets a new recording (`reset`). The events of a
 * durable session before this watch started are not in its recording: it starts from a snapshot
 * of the stored state. Errors of the inspector (a recording that cannot be written) go to
 * `onError` and never stop the watch.
 * @example
 * ```ts
 * const live = new LiveInspectorSource((m) => console.error(m));
 * const watch = watchTranscripts({ paths, onSession: (w) => live.attach(w), onUpdate: (w) => live.update(w) });
 * const server = await serveInspector({ source: live, port: 4401 });
 * ```
 */
export class LiveInspectorSource implements InspectorSource {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'rxslice-live-'));
  private readonly entries = new Map<string, Entry>();
  private readonly byWatched = new Map<WatchedTranscript, Entry>();
  private readonly changes = new Subject<InspectorChange>();
  private count = 0;
  /** Sessions added, their new events, and restarts. */
  readonly changes$: Observable<InspectorChange> = this.changes.asObservable();

  constructor(private readonly onError: (message: string) => void = () => undefined) {}

  /** Starts recording `watched`'s current session (again, after a restart: the page reads it anew). */
  attach(watched: WatchedTranscript): void {
    const previous = this.byWatched.get(watched);
    const generation = previous === undefined ? 0 : previous.generation + 1;
    const n = previous?.n ?? this.count + 1;
    const file = path.join(this.dir, `${n}-${generation}.jsonl`);
    let recorder: FlightRecorder;
    let model: InspectorModel;
    try {
      recorder = flightRecorder(watched.current, { file, snapshotEvery: 1000, label: LIVE_RECORDING_LABEL, flushIntervalMs: 1000 });
      model = new InspectorModel(file, watchDefinitions());
    } catch (e) {
      this.onError(`${watched.label}: the inspector cannot record this session (${e instanceof Error ? e.message : String(e)}); the watch goes on`);
      return;
    }
    if (previous !== undefined) {
      previous.recorder.close();
      previous.model.close();
      rmSync(previous.model.recording.file, { force: true });
      previous.recorder = recorder;
      previous.model = model;
      previous.generation = generation;
      previous.closed = false;
      this.changes.next({ kind: 'reset', session: previous.id });
      return;
    }
    this.count = n;
    const entry: Entry = { id: watched.label, watched, n, recorder, model, generation, closed: false };
    this.entries.set(entry.id, entry);
    this.byWatched.set(watched, entry);
    this.changes.next({ kind: 'sessions' });
  }

  /** After lines of `watched` were applied: writes its recording's buffer, reads it, tells the pages. */
  update(watched: WatchedTranscript): void {
    const entry = this.byWatched.get(watched);
    if (entry === undefined) return;
    entry.recorder.flush();
    let added: number;
    try {
      added = entry.model.refresh();
    } catch (e) {
      this.onError(`${watched.label}: the inspector cannot read its recording (${e instanceof Error ? e.message : String(e)})`);
      return;
    }
    if (added > 0) this.changes.next({ kind: 'events', session: entry.id, lastSeq: entry.model.recording.lastSeq, size: entry.model.recording.size });
  }

  /** After a notice about `watched`: a session closed (its file disappeared) is shown as closed. */
  noticed(watched: WatchedTranscript | undefined): void {
    const entry = watched === undefined ? undefined : this.byWatched.get(watched);
    if (entry === undefined || entry.closed || !watched!.closed) return;
    entry.closed = true;
    this.update(watched!);
    this.changes.next({ kind: 'sessions' });
  }

  sessions(): readonly InspectorSessionInfo[] {
    return [...this.entries.values()].map((e) => ({
      id: e.id,
      label: e.watched.label,
      file: e.watched.file,
      ...(e.watched.parent === undefined ? {} : { parent: e.watched.parent }),
      live: true,
      closed: e.closed,
      size: e.model.recording.size,
      lastSeq: e.model.recording.lastSeq,
    }));
  }

  model(id: string): InspectorModel | undefined {
    return this.entries.get(id)?.model;
  }

  /** Stops every recorder, completes `changes$` and removes the recordings. Idempotent. */
  close(): void {
    for (const entry of this.entries.values()) {
      entry.recorder.close();
      entry.model.close();
    }
    this.changes.complete();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
