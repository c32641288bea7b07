import { Observable, type Subscription } from 'rxjs';
import type { AnyChannelDef, ChannelDef } from './define-channel';
import { InvalidChannelError } from './invalid-channel-error';
import type { Envelope, EnvelopeMeta } from './envelope';
import type { Event } from './event';
import { RxSliceError } from '../internal/errors';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { clip, quote } from '../internal/quote';

/**
 * Thrown (as the error of `replay`) when the events asked for are no longer, or never were,
 * available: a channel never replays with a gap.
 */
export class ChannelReplayError extends RxSliceError {
  override readonly name = 'ChannelReplayError';
  constructor(
    readonly channel: string,
    readonly fromSeq: number,
    /** The first seq the session still holds every event of the channel from. */
    readonly availableFromSeq: number,
    detail: string,
  ) {
    super(
      'CHANNEL_REPLAY_UNAVAILABLE',
      `Channel ${quote(channel)} cannot replay from seq ${fromSeq}: ${detail}. Its buffer holds every event from seq ${availableFromSeq}; replay from there, raise replayBuffer, open the channel earlier (createSession({ channels })), or pass a source (a flight recording) that covers the gap.`,
    );
  }
}

/**
 * Where older committed envelopes can be read (a flight recording from
 * `readRecording(file, { slices })` is one): the envelopes with `fromSeq ≤ seq ≤ toSeq`, in order.
 */
export interface EnvelopeSource {
  /** The last seq it holds. */
  readonly lastSeq: number;
  /**
   * Optional: the seq it starts after: it holds every committed envelope with
   * `firstSeq < seq ≤ lastSeq` (a flight recording: the seq of its first snapshot). A replay from
   * a seq at or below it fails with {@link ChannelReplayError}. Absent: 0 (from the session's start).
   */
  readonly firstSeq?: number;
  /** The committed envelopes with `fromSeq <= seq <= toSeq` (both optional, inclusive), in seq order. */
  envelopes(range: { readonly fromSeq?: number; readonly toSeq?: number }): Iterable<{ readonly seq: number; readonly at: number; readonly event: Event; readonly meta?: EnvelopeMeta }>;
}

/** Options of {@link Channel.replay}. */
export interface ReplayOptions {
  /** The first seq to re-emit (an integer ≥ 1). */
  readonly fromSeq: number;
  /** Older envelopes than the session's buffer holds (a flight recording of this session). */
  readonly source?: EnvelopeSource;
}

/** A channel opened on a session by `session.channel(def)`. `TEvent` is the channel's event union. */
export interface Channel<TEvent extends { readonly type: string }> {
  readonly def: ChannelDef<string, TEvent>;
  /**
   * Dispatches `event` (same pipeline and guarantees as `session.dispatch`); returns its envelope.
   * @throws {@link InvalidChannelError} when `event` is not of the channel (a type error too),
   * and whatever `dispatch` throws.
   */
  publish(event: TEvent, meta?: EnvelopeMeta): Envelope<TEvent & Event>;
  /**
   * Calls `handler` with each event of the channel once committed, in commit order, narrowed to
   * the channel's union; `options.filter` skips the events it returns false for. Unsubscribe with
   * the returned subscription. A throwing handler is reported like any slice subscriber.
   */
  subscribe(handler: (event: TEvent, envelope: CommittedEnvelope<TEvent & Event>) => void): Subscription;
  /** As the overload above, calling `handler` only for the events `options.filter` returns true for. */
  subscribe(options: { readonly filter: (event: TEvent) => boolean }, handler: (event: TEvent, envelope: CommittedEnvelope<TEvent & Event>) => void): Subscription;
  /** The channel's committed envelopes from now on (hot, like `session.committed$`). */
  readonly committed$: Observable<CommittedEnvelope<TEvent & Event>>;
  /**
   * Re-emits the channel's committed envelopes from `fromSeq`, then goes on live: every envelope
   * exactly once and in seq order, including those committed while the replay is delivered
   * (a subscriber that dispatches sees its event after the replay, FIFO). Older envelopes come
   * from the session's buffer (`replayBuffer`), older still from `options.source`. Cold:
   * each subscription replays on its own, synchronously.
   * @throws (as its error notification) {@link ChannelReplayError} when envelopes from `fromSeq`
   * are not all available (the buffer and `options.source` leave a gap, or the source starts
   * after `fromSeq`: its `firstSeq`), or when the source gives a seq that is not above the one
   * before it (two runs of a session that numbered events alike): the envelopes before the
   * error went out, none is skipped in silence; `RangeError` for a `fromSeq` that is not an
   * integer ≥ 1.
   */
  replay(options: ReplayOptions): Observable<Envelope<TEvent & Event>>;
  /** The first seq from which the session's buffer holds every envelope of the channel. */
  readonly bufferedFromSeq: number;
}

/** What a channel needs of its session. */
export interface ChannelHost {
  readonly lastSeq: number;
  readonly committed$: Observable<CommittedEnvelope>;
  dispatch<TEvent extends Event>(event: TEvent, meta?: EnvelopeMeta): Envelope<TEvent>;
}

/**
 * @internal A channel of one session: its replay buffer (a ring of the newest `replayBuffer`
 * committed envelopes of the channel, filled from the moment the channel is opened) and its API.
 */
export class ChannelRuntime<TEvent extends { readonly type: string }> implements Channel<TEvent> {
  private readonly ring: (CommittedEnvelope | undefined)[];
  private start = 0;
  private count = 0;
  /** Every envelope of the channel with seq ≥ this is in the ring (read through `covered`). */
  private coveredFrom: number;
  /** Whether a commit reached the channel since it opened. */
  private sawCommit = false;
  readonly committed$: Observable<CommittedEnvelope<TEvent & Event>>;

  constructor(
    readonly def: ChannelDef<string, TEvent>,
    private readonly host: ChannelHost,
    capacity: number,
  ) {
    this.ring = new Array(capacity);
    this.coveredFrom = host.lastSeq + 1;
    this.committed$ = new Observable<CommittedEnvelope<TEvent & Event>>((subscriber) =>
      host.committed$.subscribe({
        next: (c) => {
          if (def.match(c.event)) subscriber.next(c as CommittedEnvelope<TEvent & Event>);
        },
        complete: () => subscriber.complete(),
      }),
    );
    host.committed$.subscribe((c) => {
      if (!this.sawCommit) {
        // The first commit since the channel opened: the buffer holds every event of the
        // channel from it on (the session's seq can no longer move forward, see `covered`).
        this.sawCommit = true;
        if (c.seq > this.coveredFrom) this.coveredFrom = c.seq;
      }
      if (def.match(c.event)) this.keep(c);
    });
  }

  /**
   * Every envelope of the channel with seq ≥ this is in the ring. Before the first commit, above
   * the session's last seq: a session that numbered no event yet moves its seq forward to a
   * journal's found later (a library slice on durable storage), and the events up to there are
   * an earlier run's, not in the buffer.
   */
  private get covered(): number {
    return this.sawCommit ? this.coveredFrom : Math.max(this.coveredFrom, this.host.lastSeq + 1);
  }

  get bufferedFromSeq(): number {
    return this.covered;
  }

  private keep(c: CommittedEnvelope): void {
    const capacity = this.ring.length;
    if (capacity === 0) {
      this.coveredFrom = c.seq + 1;
      return;
    }
    if (this.count === capacity) {
      const dropped = this.ring[this.start] as CommittedEnvelope;
      this.coveredFrom = dropped.seq + 1;
      this.ring[this.start] = c;
      this.start = (this.start + 1) % capacity;
    } else {
      this.ring[(this.start + this.count) % capacity] = c;
      this.count++;
    }
  }

  /** The buffered envelopes with seq ≥ fromSeq, oldest first (a copy). */
  private buffered(fromSeq: number): CommittedEnvelope[] {
    const out: CommittedEnvelope[] = [];
    for (let i = 0; i < this.count; i++) {
      const c = this.ring[(this.start + i) % this.ring.length] as CommittedEnvelope;
      if (c.seq >= fromSeq) out.push(c);
    }
    return out;
  }

  publish(event: TEvent, meta?: EnvelopeMeta): Envelope<TEvent & Event> {
    if (!this.def.match(event)) {
      const type = event !== null && typeof event === 'object' ? String((event as { type?: unknown }).type) : String(event);
      throw new InvalidChannelError(this.def.name, `${quote(type)} is not one of its event types (${this.def.eventTypes.join(', ')})`);
    }
    return this.host.dispatch(event as TEvent & Event, meta);
  }

  subscribe(
    a: { readonly filter: (event: TEvent) => boolean } | ((event: TEvent, envelope: CommittedEnvelope<TEvent & Event>) => void),
    b?: (event: TEvent, envelope: CommittedEnvelope<TEvent & Event>) => void,
  ): Subscription {
    const handler = typeof a === 'function' ? a : b;
    const filter = typeof a === 'function' ? undefined : a.filter;
    if (typeof handler !== 'function') throw new InvalidChannelError(this.def.name, 'subscribe needs a handler function');
    if (filter !== undefined && typeof filter !== 'function') throw new InvalidChannelError(this.def.name, 'subscribe option "filter" must be a function');
    return this.committed$.subscribe((c) => {
      if (filter === undefined || filter(c.event as TEvent)) handler(c.event as TEvent, c);
    });
  }

  replay(options: ReplayOptions): Observable<Envelope<TEvent & Event>> {
    return new Observable<Envelope<TEvent & Event>>((subscriber) => {
      const fromSeq = options?.fromSeq;
      if (!Number.isInteger(fromSeq) || fromSeq < 1) {
        subscriber.error(new RangeError(`replay({ fromSeq }) needs an integer ≥ 1 (got ${clip(fromSeq)})`));
        return undefined;
      }
      // Live first, held back until the backlog is out: nothing committed meanwhile is lost.
      let live = false;
      let last = fromSeq - 1;
      const pending: CommittedEnvelope[] = [];
      const covered = this.covered;
      // Every envelope from `fromSeq` on goes out once, in increasing seq order (those before it:
      // a replay from a seq still to come). One whose seq is not above the last one's (a source
      // holding two runs that numbered events alike, or out of order) would be left out or
      // repeated: an error, never a silent skip.
      const emit = (env: Envelope): boolean => {
        if (env.seq < fromSeq) return true;
        if (env.seq <= last) {
          subscriber.error(
            new ChannelReplayError(this.def.name, fromSeq, covered, `envelope seq ${env.seq} comes after seq ${last}, not in increasing seq order (a source holding two runs that numbered events alike?)`),
          );
          return false;
        }
        last = env.seq;
        subscriber.next(env as Envelope<TEvent & Event>);
        return true;
      };
      let completed = false;
      const subscription = this.host.committed$.subscribe({
        next: (c) => {
          if (!this.def.match(c.event)) return;
          if (!live) pending.push(c);
          else if (!subscriber.closed) emit(c);
        },
        // The session was disposed: complete once the backlog is out.
        complete: () => {
          completed = true;
          if (live) subscriber.complete();
        },
      });
      const backlog: Envelope[] = [];
      if (fromSeq < covered) {
        const source = options.source;
        if (source === undefined) {
          subscriber.error(new ChannelReplayError(this.def.name, fromSeq, covered, 'older events are not in its buffer and no source was given'));
          return subscription;
        }
        if (source.lastSeq < covered - 1) {
          subscriber.error(new ChannelReplayError(this.def.name, fromSeq, covered, `the source ends at seq ${source.lastSeq}, before the buffer begins (a gap from ${source.lastSeq + 1} to ${covered - 1})`));
          return subscription;
        }
        const sourceFrom = source.firstSeq ?? 0;
        if (fromSeq <= sourceFrom) {
          subscriber.error(new ChannelReplayError(this.def.name, fromSeq, covered, `the source holds only the events after seq ${sourceFrom} (a gap from ${fromSeq} to ${sourceFrom})`));
          return subscription;
        }
        try {
          for (const env of source.envelopes({ fromSeq, toSeq: covered - 1 })) if (this.def.match(env.event)) backlog.push(env as Envelope);
        } catch (e) {
          subscriber.error(e);
          return subscription;
        }
      }
      for (const c of this.buffered(fromSeq)) backlog.push(c);
      for (const env of backlog) {
        if (subscriber.closed || !emit(env)) return subscription;
      }
      // Envelopes committed while the backlog was delivered (a subscriber may dispatch), in order.
      while (pending.length > 0 && !subscriber.closed) if (!emit(pending.shift() as CommittedEnvelope)) return subscription;
      live = true;
      if (completed) subscriber.complete();
      return subscription;
    });
  }
}

/** @internal The channel of `def` on a session's channel table, opened on first use. */
export function openChannel<TEvent extends { readonly type: string }>(
  table: Map<string, ChannelRuntime<any>>,
  def: ChannelDef<string, TEvent>,
  host: ChannelHost,
): ChannelRuntime<TEvent> {
  if (typeof def?.match !== 'function' || !Array.isArray(def.eventTypes)) throw new InvalidChannelError(String((def as { name?: unknown } | undefined)?.name), 'session.channel takes a channel made by defineChannel');
  const open = table.get(def.name);
  if (open !== undefined) {
    if (open.def.eventTypes.join('\u0000') !== def.eventTypes.join('\u0000')) {
      throw new InvalidChannelError(def.name, 'another channel of this name, with other event types, is open on the session');
    }
    return open as ChannelRuntime<TEvent>;
  }
  const runtime = new ChannelRuntime(def, host, def.replayBuffer);
  table.set(def.name, runtime);
  return runtime;
}

/** @internal */
export type { AnyChannelDef };
