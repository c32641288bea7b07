/**
 * OpenTelemetry tracing of a session's sagas and effects, read from its committed
 * `rxslice.saga.*` and `rxslice.effect.*` events (the saga log and the effect lifecycle).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type HrTime, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import type { Subscription } from 'rxjs';
import type { ErrorInfo } from '../effects/lifecycle-events';
import type { Event } from '../events/event';
import type { CommittedEnvelope } from '../session/committed-envelope';
import type { Store } from '../store/create-store';

/** The instrumentation scope name of the spans (`trace.getTracer(TRACER_NAME)`). */
export const TRACER_NAME = 'rxslice';

/** Options of {@link traceSession}. */
export interface TraceSessionOptions {
  /** The tracer to start spans with. Default: `trace.getTracer('rxslice')` of the global tracer provider. */
  readonly tracer?: Tracer;
  /** Added to every span (e.g. `{ 'rxslice.session': 'agent-7' }`). */
  readonly attributes?: Attributes;
  /**
   * Also record every other committed event whose `meta.correlationId` is a running saga's id as
   * an event of that saga's span (name: the event type). Default true.
   */
  readonly correlatedEvents?: boolean;
}

/** A running tracer of one session (see {@link traceSession}). */
export interface SessionTracing {
  /** Spans started and not ended yet (sagas, step attempts, compensations, effects, effect attempts). */
  readonly openSpans: number;
  /** Stops following the session and ends every open span (status unset, attribute `rxslice.unfinished: true`). */
  dispose(): void;
}

type Payload = Record<string, unknown>;

interface SagaSpans {
  readonly span: Span;
  readonly name: string;
  step?: { readonly name: string; readonly span: Span } | undefined;
  compensation?: { readonly name: string; readonly span: Span } | undefined;
  pending: string[];
}

interface EffectSpans {
  readonly span: Span;
  readonly type: string;
  readonly causeSeq: number | undefined;
  attempt?: Span | undefined;
  /** Succeeded or failed: ends once the events it dispatched after that (result, compensation) are recorded. */
  settling: boolean;
}

/** Span context of the span an envelope belongs to, kept for the last {@link CAUSES_KEPT} envelopes (links). */
const CAUSES_KEPT = 4096;

/**
 * An envelope time (ms since the epoch) as an `HrTime`: a plain number below
 * `performance.now()` would be read by the SDK as a `performance` time (virtual clocks start near 0).
 */
const hr = (ms: number): HrTime => {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
};

const errorAttributes = (error: ErrorInfo | undefined): Attributes =>
  error === undefined ? {} : { 'exception.type': error.name, 'exception.message': error.message, ...(error.code === undefined ? {} : { 'rxslice.error.code': error.code }) };

function failSpan(span: Span, error: ErrorInfo | undefined, at: number): void {
  if (error !== undefined) {
    span.addEvent('exception', errorAttributes(error), hr(at));
    span.setAttribute('error.type', error.code ?? error.name);
  }
  span.setStatus({ code: SpanStatusCode.ERROR, ...(error === undefined ? {} : { message: error.message }) });
  span.end(hr(at));
}

/**
 * Traces the sagas and effects of `session` with OpenTelemetry, from now on.
 *
 * - one span per saga run (`saga <name>`, from `started` to `completed` or `failed`), with a
 *   child span per step attempt (`saga <name> step <step>`, attribute `rxslice.saga.attempt`) and
 *   per compensation (`saga <name> compensate <step>`, its retries as span events);
 * - one span per effect run (`effect <type>`) with a child span per attempt
 *   (`effect <type> attempt`), retries (`rxslice.effect.retrying`, with `delayMs`) and the
 *   events the effect dispatched after settling (its `onSuccess` or compensation event) as span
 *   events, its compensation as `rxslice.effect.compensated`;
 * - ids: `rxslice.saga.id` (the saga id, which is the `correlationId` of its events),
 *   `rxslice.correlation_id`, `rxslice.causation_seq`, `rxslice.seq`; a span started by an
 *   event that belongs to another traced span gets a link to it (`rxslice.link: 'causation'`).
 *   Failures follow the semantic conventions: status ERROR, an `exception` event with
 *   `exception.type` / `exception.message`, attribute `error.type` (the rxslice error code when
 *   there is one, else the error's name).
 *
 * @remarks Spans are started and ended synchronously as the events commit (`committed$`), with
 * the envelope's `at` (the session scheduler's time, ms since the epoch with the default
 * scheduler) as start and end time. The session's behaviour does not change. Sagas and effects
 * running when tracing starts are not traced; spans still open at {@link SessionTracing.dispose}
 * (or when the session is disposed) are ended then. `@opentelemetry/api` is an optional peer
 * dependency of this entry.
 * @example
 * ```ts
 * const tracing = traceSession(session); // global tracer provider (e.g. the NodeSDK's)
 * session.runSaga(Deploy, { app: 'web' }).subscribe();
 * // spans: "saga deploy" > "saga deploy step build", "saga deploy step push", ...
 * tracing.dispose();
 * ```
 */
export function traceSession(session: Store<any>, options: TraceSessionOptions = {}): SessionTracing {
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  const base = options.attributes ?? {};
  const correlated = options.correlatedEvents ?? true;
  const sagas = new Map<string, SagaSpans>();
  const effects = new Map<number, EffectSpans>();
  const spanOfSeq = new Map<number, SpanContext>();
  let open = 0;

  const start = (name: string, env: CommittedEnvelope, attributes: Attributes, parent?: Span): Span => {
    const meta = env.meta;
    const cause = meta.causationId === undefined ? undefined : spanOfSeq.get(meta.causationId);
    const links: Link[] = cause === undefined || (parent !== undefined && cause.spanId === parent.spanContext().spanId) ? [] : [{ context: cause, attributes: { 'rxslice.link': 'causation' } }];
    const span = tracer.startSpan(
      name,
      {
        kind: SpanKind.INTERNAL,
        startTime: hr(env.at),
        links,
        attributes: {
          ...base,
          ...attributes,
          'rxslice.seq': env.seq,
          ...(meta.correlationId === undefined ? {} : { 'rxslice.correlation_id': meta.correlationId }),
          ...(meta.causationId === undefined ? {} : { 'rxslice.causation_seq': meta.causationId }),
        },
      },
      parent === undefined ? context.active() : trace.setSpan(context.active(), parent),
    );
    open++;
    return span;
  };
  const end = (span: Span | undefined, at: number, error?: ErrorInfo | null): void => {
    if (span === undefined) return;
    if (error === null || error === undefined) {
      if (error === null) span.setStatus({ code: SpanStatusCode.OK });
      span.end(hr(at));
    } else failSpan(span, error, at);
    open--;
  };
  const remember = (seq: number, span: Span | undefined): void => {
    if (span === undefined) return;
    spanOfSeq.set(seq, span.spanContext());
    if (spanOfSeq.size > CAUSES_KEPT) spanOfSeq.delete(spanOfSeq.keys().next().value as number);
  };

  const startCompensation = (s: SagaSpans, env: CommittedEnvelope): void => {
    const next = s.pending.shift();
    s.compensation = next === undefined ? undefined : { name: next, span: start(`saga ${s.name} compensate ${next}`, env, { 'rxslice.saga.name': s.name, 'rxslice.saga.step': next }, s.span) };
  };

  const onSaga = (env: CommittedEnvelope, type: string, p: Payload): void => {
    const sagaId = String(p['sagaId']);
    const name = String(p['saga']);
    if (type === 'rxslice.saga.started') {
      const span = start(`saga ${name}`, env, { 'rxslice.saga.name': name, 'rxslice.saga.id': sagaId });
      sagas.set(sagaId, { span, name, pending: [] });
      remember(env.seq, span);
      return;
    }
    const s = sagas.get(sagaId);
    if (s === undefined) return; // started before tracing
    const step = p['step'] === undefined ? undefined : String(p['step']);
    const error = p['error'] as ErrorInfo | undefined;
    switch (type) {
      case 'rxslice.saga.stepStarted':
        end(s.step?.span, env.at);
        s.step = { name: step!, span: start(`saga ${name} step ${step!}`, env, { 'rxslice.saga.name': name, 'rxslice.saga.step': step!, 'rxslice.saga.attempt': Number(p['attempt']), ...(p['resumed'] === true ? { 'rxslice.saga.resumed': true } : {}) }, s.span) };
        remember(env.seq, s.step.span);
        return;
      case 'rxslice.saga.stepRetrying':
        s.step?.span.addEvent('rxslice.saga.stepRetrying', { 'rxslice.retry.delay_ms': Number(p['delayMs']), 'rxslice.saga.attempt': Number(p['attempt']), ...errorAttributes(error) }, hr(env.at));
        end(s.step?.span, env.at, error);
        s.step = undefined;
        return;
      case 'rxslice.saga.stepSucceeded':
        end(s.step?.span, env.at, null);
        remember(env.seq, s.step?.span);
        s.step = undefined;
        return;
      case 'rxslice.saga.stepFailed':
        end(s.step?.span, env.at, error);
        s.step = undefined;
        return;
      case 'rxslice.saga.compensating':
        s.span.addEvent('rxslice.saga.compensating', { 'rxslice.saga.reason': String(p['reason']), 'rxslice.saga.steps': (p['steps'] as string[]).join(',') }, hr(env.at));
        s.pending = [...(p['steps'] as string[])];
        startCompensation(s, env);
        return;
      case 'rxslice.saga.compensationRetrying':
        s.compensation?.span.addEvent('rxslice.saga.compensationRetrying', { 'rxslice.retry.delay_ms': Number(p['delayMs']), 'rxslice.saga.attempt': Number(p['attempt']), ...errorAttributes(error) }, hr(env.at));
        return;
      case 'rxslice.saga.stepCompensated':
      case 'rxslice.saga.compensationFailed':
        end(s.compensation?.span, env.at, type === 'rxslice.saga.stepCompensated' ? null : error);
        startCompensation(s, env);
        return;
      case 'rxslice.saga.completed':
      case 'rxslice.saga.failed':
        end(s.step?.span, env.at);
        end(s.compensation?.span, env.at);
        if (type === 'rxslice.saga.failed') {
          const failures = p['compensationFailures'] as string[] | undefined;
          if (failures !== undefined && failures.length > 0) s.span.setAttribute('rxslice.saga.compensation_failures', failures.join(','));
        }
        end(s.span, env.at, type === 'rxslice.saga.completed' ? null : error);
        sagas.delete(sagaId);
        return;
      default:
        s.span.addEvent(type, {}, hr(env.at));
    }
  };

  const settle = (e: EffectSpans, at: number, error?: ErrorInfo | null): void => {
    end(e.span, at, error);
    for (const [id, other] of effects) if (other === e) effects.delete(id);
  };

  const onEffect = (env: CommittedEnvelope, type: string, p: Payload): void => {
    if (p['kind'] === 'epic') return;
    const effectId = Number(p['effectId']);
    const effectType = String(p['effectType']);
    let e = effects.get(effectId);
    if (type === 'rxslice.effect.started') {
      if (e === undefined) {
        const parent = env.meta.causationId === undefined ? undefined : sagaOfCause(env);
        e = { span: start(`effect ${effectType}`, env, { 'rxslice.effect.type': effectType, 'rxslice.effect.id': effectId }, parent), type: effectType, causeSeq: env.meta.causationId, settling: false };
        effects.set(effectId, e);
      }
      end(e.attempt, env.at);
      e.attempt = start(`effect ${effectType} attempt`, env, { 'rxslice.effect.type': effectType, 'rxslice.effect.id': effectId, 'rxslice.effect.attempt': Number(p['attempt']) }, e.span);
      remember(env.seq, e.attempt);
      return;
    }
    if (e === undefined) return;
    const error = p['error'] as ErrorInfo | undefined;
    switch (type) {
      case 'rxslice.effect.retrying':
        e.span.addEvent('rxslice.effect.retrying', { 'rxslice.effect.attempt': Number(p['attempt']), 'rxslice.retry.delay_ms': Number(p['delayMs']), ...errorAttributes(error) }, hr(env.at));
        end(e.attempt, env.at, error);
        e.attempt = undefined;
        return;
      case 'rxslice.effect.succeeded':
        end(e.attempt, env.at, null);
        remember(env.seq, e.attempt ?? e.span);
        e.attempt = undefined;
        e.span.setStatus({ code: SpanStatusCode.OK });
        e.settling = true;
        return;
      case 'rxslice.effect.failed':
        if (e.attempt !== undefined) end(e.attempt, env.at, error);
        e.attempt = undefined;
        e.span.setAttribute('rxslice.effect.attempts', Number(p['attempts']));
        if (error !== undefined) {
          e.span.addEvent('exception', errorAttributes(error), hr(env.at));
          e.span.setAttribute('error.type', error.code ?? error.name);
        }
        e.span.setStatus({ code: SpanStatusCode.ERROR, ...(error === undefined ? {} : { message: error.message }) });
        e.settling = true;
        return;
      case 'rxslice.effect.compensated':
        e.span.addEvent('rxslice.effect.compensated', { 'rxslice.effect.compensation': String(p['compensation']) }, hr(env.at));
        settle(e, env.at);
        return;
      case 'rxslice.effect.cancelled':
        e.attempt?.addEvent('rxslice.effect.cancelled', {}, hr(env.at));
        end(e.attempt, env.at);
        e.attempt = undefined;
        e.span.addEvent('rxslice.effect.cancelled', {}, hr(env.at));
        settle(e, env.at);
        return;
      default:
        e.span.addEvent(type, {}, hr(env.at));
    }
  };

  /** The saga span whose event caused `env` (an effect requested while a saga's event was reduced). */
  const sagaOfCause = (env: CommittedEnvelope): Span | undefined => {
    const id = env.meta.correlationId;
    return id === undefined ? undefined : sagas.get(id)?.span;
  };

  const onCommitted = (env: CommittedEnvelope): void => {
    const event: Event = env.event;
    const type = event.type;
    const p = (event.payload ?? {}) as Payload;
    // Effects that settled: the events they dispatched right after (result, compensation) are theirs.
    for (const e of new Set(effects.values())) {
      if (!e.settling) continue;
      const mine = env.meta.source === `effect:${e.type}` && env.meta.causationId === e.causeSeq;
      if (mine && !type.startsWith('rxslice.')) {
        e.span.addEvent(type, { 'rxslice.seq': env.seq }, hr(env.at));
        remember(env.seq, e.span);
      } else if (!(mine && type === 'rxslice.effect.compensated')) settle(e, env.at);
    }
    if (type.startsWith('rxslice.saga.')) onSaga(env, type, p);
    else if (type.startsWith('rxslice.effect.')) onEffect(env, type, p);
    else if (correlated && env.meta.correlationId !== undefined) {
      const s = sagas.get(env.meta.correlationId);
      if (s !== undefined) {
        (s.step?.span ?? s.compensation?.span ?? s.span).addEvent(type, { 'rxslice.seq': env.seq }, hr(env.at));
        remember(env.seq, s.step?.span ?? s.span);
      }
    }
  };

  let subscription: Subscription | undefined;
  const endAll = (): void => {
    const at = session.scheduler.now();
    for (const s of sagas.values()) {
      for (const span of [s.step?.span, s.compensation?.span, s.span]) {
        if (span === undefined) continue;
        span.setAttribute('rxslice.unfinished', true);
        end(span, at);
      }
    }
    sagas.clear();
    for (const e of new Set(effects.values())) {
      if (e.attempt !== undefined) {
        e.attempt.setAttribute('rxslice.unfinished', true);
        end(e.attempt, at);
      }
      if (!e.settling) e.span.setAttribute('rxslice.unfinished', true);
      end(e.span, at);
    }
    effects.clear();
  };
  subscription = session.committed$.subscribe({ next: onCommitted, complete: endAll });

  return {
    get openSpans() {
      return open;
    },
    dispose() {
      subscription?.unsubscribe();
      subscription = undefined;
      endAll();
    },
  };
}
