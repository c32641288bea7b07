/**
 * Failure notifications: every failed tool call asks for a `transcript/notify` effect (the
 * `toolStats` reducer returns it with `withEffects`); the handler hands it to an in-memory
 * {@link NotificationChannel} under a retry policy, and the outcome comes back as an event
 * (`transcript/notificationDelivered`, or the compensation `transcript/notificationAbandoned`)
 * that the `notifications` log records for the report.
 *
 * The channel is deterministic, so that retries and compensation show on real data without
 * randomness: it rejects some attempts depending on the FNV-1a hash of the `tool_use_id`
 * (see `rejectionsFor`). Retry delays run on the session's scheduler: with the replay's
 * `TranscriptClock` they are transcript time (a retry 1 s after a failure runs when the replay
 * reaches a line 1 s later, or at the end of the replay), so a replay stays synchronous.
 */
import { defer, of } from 'rxjs';
import { z } from 'zod';
import { defineEffect, defineEvent, defineSlice, append, RetryPolicy, type EffectHandler, type InferEffect } from '../index';
import { clip } from '../internal/quote';

/** What a notification says: which call failed, with the first line of its error. */
export const Notification = z.object({
  toolUseId: z.string(),
  tool: z.string(),
  error: z.string(),
  /** The failed result's timestamp (ISO-8601), `null` when the line had none. */
  failedAt: z.string().nullable(),
});
export type Notification = z.infer<typeof Notification>;

/** Attempts per notification: the first and two retries. */
export const NOTIFY_MAX_ATTEMPTS = 3;
/** Delay before the first retry (ms of the session's scheduler); the second waits twice as long. */
export const NOTIFY_INITIAL_DELAY_MS = 1_000;

/** The channel accepted a notification: on which attempt, at what session time (ms). */
export interface Delivery {
  readonly notification: Notification;
  readonly attempt: number;
  readonly atMs: number;
}

/** A notification handed to the channel, accepted on attempt `attempts` at session time `deliveredAtMs`. */
export const NotificationDelivered = /* @__PURE__ */ defineEvent(
  'transcript/notificationDelivered',
  Notification.extend({ attempts: z.number().int().positive(), deliveredAtMs: z.number() }),
);

/** The compensation of `transcript/notify`: every attempt was rejected; `reason` is the last rejection. */
export const NotificationAbandoned = /* @__PURE__ */ defineEvent(
  'transcript/notificationAbandoned',
  Notification.extend({ attempts: z.number().int().positive(), reason: z.string() }),
);

/** The channel's rejection of one attempt. */
export class NotificationRejectedError extends Error {
  override readonly name = 'NotificationRejectedError';
  constructor(
    readonly toolUseId: string,
    readonly attempt: number,
    readonly permanent: boolean,
  ) {
    super(
      permanent
        ? `the channel refuses notifications about ${clip(toolUseId)} (hash bucket ${String(DEAD_BUCKET)})`
        : `the channel was busy for ${clip(toolUseId)} (attempt ${String(attempt)})`,
    );
  }
}

/**
 * The `transcript/notify` effect: exponential retry (3 attempts, 1 s then 2 s apart, no
 * jitter), the delivered event on success, the abandoned event as compensation.
 */
export const Notify = defineEffect('transcript/notify', Notification, {
  retry: RetryPolicy.exponential({ maxAttempts: NOTIFY_MAX_ATTEMPTS, initialDelayMs: NOTIFY_INITIAL_DELAY_MS, factor: 2 }),
  onSuccess: (effect, delivery: Delivery) =>
    NotificationDelivered({ ...effect.payload, attempts: delivery.attempt, deliveredAtMs: delivery.atMs }),
  compensate: (effect, error) =>
    NotificationAbandoned({
      ...effect.payload,
      attempts: error instanceof NotificationRejectedError ? error.attempt : NOTIFY_MAX_ATTEMPTS,
      reason: error instanceof Error ? error.message : String(error),
    }),
});

/** Number of hash buckets of the channel's rule. */
export const CHANNEL_BUCKETS = 8;
/** The bucket whose notifications the channel always rejects (so they are compensated). */
export const DEAD_BUCKET = 7;

/** FNV-1a, 32 bits, over the UTF-16 code units of `text` (Fowler, Noll, Vo). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * How many attempts the channel rejects for a notification about `toolUseId`, by
 * `fnv1a(toolUseId) % 8`: bucket 1 → the first (delivered on attempt 2), bucket 2 → the first
 * two (delivered on attempt 3), bucket 7 → every attempt (compensated), others → none.
 *
 * @example
 * ```ts
 * rejectionsFor('toolu_01...'); // 0, 1, 2 or Infinity
 * ```
 */
export function rejectionsFor(toolUseId: string): number {
  const bucket = fnv1a(toolUseId) % CHANNEL_BUCKETS;
  if (bucket === DEAD_BUCKET) return Number.POSITIVE_INFINITY;
  return bucket === 1 || bucket === 2 ? bucket : 0;
}

/**
 * An in-memory notification channel (the stand-in for a chat webhook or a pager): keeps the
 * notifications it accepted, in order, and rejects attempts by the rule of `rejectionsFor`.
 */
export class NotificationChannel {
  /** Accepted notifications, in acceptance order. */
  readonly delivered: Delivery[] = [];
  /** Attempts rejected so far. */
  rejected = 0;

  /**
   * Accepts `notification` (returns the delivery) or throws {@link NotificationRejectedError}.
   * @param attempt - 1 for the first attempt.
   * @param atMs - The session time of the attempt.
   */
  deliver(notification: Notification, attempt: number, atMs: number): Delivery {
    const rejections = rejectionsFor(notification.toolUseId);
    if (attempt <= rejections) {
      this.rejected++;
      throw new NotificationRejectedError(notification.toolUseId, attempt, rejections === Number.POSITIVE_INFINITY);
    }
    const delivery = { notification, attempt, atMs };
    this.delivered.push(delivery);
    return delivery;
  }
}

/** The dependencies of a transcript session's effect handlers (`createSession({ dependencies })`). */
export interface TranscriptDeps {
  readonly channel: NotificationChannel;
}

/**
 * The handler of `transcript/notify`: one attempt is one `channel.deliver` call, made
 * synchronously when the attempt is subscribed (an observable, not a promise, so that the
 * first attempt completes within the `dispatch` of the failed result).
 */
export const deliverNotification: EffectHandler<InferEffect<typeof Notify>, Delivery, TranscriptDeps> = (effect, { attempt, deps, scheduler }) =>
  defer(() => of(deps.channel.deliver(effect.payload, attempt, scheduler.now())));

/** One settled notification in the `notifications` log. */
export const NotificationRecord = Notification.extend({
  status: z.enum(['delivered', 'abandoned']),
  attempts: z.number().int().positive(),
  /** Session time of the delivery (ms); `null` when abandoned. */
  deliveredAtMs: z.number().nullable(),
  /** The last rejection of an abandoned notification; `null` when delivered. */
  reason: z.string().nullable(),
});
export type NotificationRecord = z.infer<typeof NotificationRecord>;

/** Settled notifications, in settlement order: one item per failed tool call once its effect settled. */
export const Notifications = /* @__PURE__ */ defineSlice('notifications', {
  policy: 'log',
  schema: NotificationRecord,
  reducers: ({ on }) => [
    on(NotificationDelivered, (_view, { payload: { attempts, deliveredAtMs, ...n } }) =>
      append<NotificationRecord>({ ...n, status: 'delivered', attempts, deliveredAtMs, reason: null }),
    ),
    on(NotificationAbandoned, (_view, { payload: { attempts, reason, ...n } }) =>
      append<NotificationRecord>({ ...n, status: 'abandoned', attempts, deliveredAtMs: null, reason }),
    ),
  ],
});

/** The notification events, for `createSession({ events })`. */
export const notificationEvents = [NotificationDelivered, NotificationAbandoned] as const;
