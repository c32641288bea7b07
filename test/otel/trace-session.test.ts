// rxslice/otel with the SDK's in-memory exporter: spans of a saga (steps, retries, compensations)
// and of effects (attempts, retries, result and compensation events), on virtual time.
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { of, throwError, VirtualTimeScheduler } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEffect, defineEvent, defineSaga, defineSlice, none, RetryPolicy, step, withEffects } from '../../src/index';
import { traceSession } from '../../src/otel/index';

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterEach(() => provider.shutdown());

const byName = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const ms = (time: readonly [number, number]): number => time[0] * 1000 + time[1] / 1e6;

describe('traceSession: sagas', () => {
  it('a span per saga, a child per step attempt and per compensation, retries and failures as span events', () => {
    const scheduler = new VirtualTimeScheduler();
    scheduler.frame = 1_000;
    let bCalls = 0;
    const Deploy = defineSaga('deploy', {
      input: z.object({ app: z.string() }),
      steps: [
        step('a', { run: () => of('ra'), compensate: () => of(undefined) }),
        step('b', {
          run: () => (++bCalls === 1 ? throwError(() => new Error('flaky')) : of('rb')),
          retry: RetryPolicy.fixed(10, 1),
          compensate: () => throwError(() => new Error('cannot undo b')),
        }),
        step('c', { run: () => throwError(() => new Error('c is down')) }),
      ],
    });
    const session = createSession({ slices: [], scheduler, sagas: [Deploy] });
    const tracing = traceSession(session, { tracer: provider.getTracer('test'), attributes: { 'rxslice.session': 's1' } });
    session.runSaga(Deploy, { app: 'web' }, { sagaId: 'saga-1' }).subscribe({ error: () => undefined });
    scheduler.flush();
    expect(tracing.openSpans).toBe(0);
    tracing.dispose();
    session.dispose();

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(
      ['saga deploy', 'saga deploy step a', 'saga deploy step b', 'saga deploy step b', 'saga deploy step c', 'saga deploy compensate b', 'saga deploy compensate a'].sort(),
    );
    const saga = one(spans, 'saga deploy');
    expect(saga.attributes).toMatchObject({ 'rxslice.saga.name': 'deploy', 'rxslice.saga.id': 'saga-1', 'rxslice.session': 's1', 'rxslice.saga.compensation_failures': 'b' });
    expect(saga.status).toEqual({ code: SpanStatusCode.ERROR, message: 'c is down' });
    expect(saga.events.map((e) => e.name)).toEqual(['rxslice.saga.compensating', 'exception']);
    expect(parentOf(saga)).toBeUndefined();
    for (const child of spans.filter((s) => s !== saga)) {
      expect(parentOf(child), child.name).toBe(saga.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(saga.spanContext().traceId);
      expect(child.attributes['rxslice.correlation_id']).toBe('saga-1');
    }

    const [b1, b2] = byName(spans, 'saga deploy step b').sort((x, y) => Number(x.attributes['rxslice.saga.attempt']) - Number(y.attributes['rxslice.saga.attempt']));
    expect(b1!.attributes['rxslice.saga.attempt']).toBe(1);
    expect(b1!.status.code).toBe(SpanStatusCode.ERROR);
    expect(b1!.attributes['error.type']).toBe('Error');
    expect(b1!.events.map((e) => [e.name, e.attributes?.['rxslice.retry.delay_ms']])).toEqual([
      ['rxslice.saga.stepRetrying', 10],
      ['exception', undefined],
    ]);
    expect(b2!.attributes['rxslice.saga.attempt']).toBe(2);
    expect(b2!.status.code).toBe(SpanStatusCode.OK);
    // The retry waited 10 ms of the session's clock: the second attempt starts 10 ms after the first ended.
    expect(ms(b2!.startTime) - ms(b1!.endTime)).toBe(10);
    expect(ms(b1!.startTime)).toBe(1_000);

    expect(one(spans, 'saga deploy step c').status).toEqual({ code: SpanStatusCode.ERROR, message: 'c is down' });
    const compensateB = one(spans, 'saga deploy compensate b');
    const compensateA = one(spans, 'saga deploy compensate a');
    expect(compensateB.status.code).toBe(SpanStatusCode.ERROR);
    expect(compensateB.events.find((e) => e.name === 'exception')?.attributes).toMatchObject({ 'exception.message': 'cannot undo b' });
    expect(compensateA.status.code).toBe(SpanStatusCode.OK);
    expect(ms(compensateA.startTime)).toBeGreaterThanOrEqual(ms(compensateB.endTime));
  });

  it('ends the spans of a saga still running when tracing is disposed, marked unfinished', () => {
    const scheduler = new VirtualTimeScheduler();
    const Slow = defineSaga('slow', { input: z.object({}), steps: [step('wait', { run: () => new Promise<number>(() => undefined) })] });
    const session = createSession({ slices: [], scheduler, sagas: [Slow] });
    const tracing = traceSession(session, { tracer: provider.getTracer('test') });
    session.runSaga(Slow, {}).subscribe();
    expect(tracing.openSpans).toBe(2);
    tracing.dispose();
    expect(tracing.openSpans).toBe(0);
    expect(exporter.getFinishedSpans().map((s) => [s.name, s.attributes['rxslice.unfinished']])).toEqual([
      ['saga slow step wait', true],
      ['saga slow', true],
    ]);
    session.dispose();
  });
});

describe('traceSession: effects', () => {
  const Sent = defineEvent('mail/sent', z.object({ to: z.string(), attempt: z.number() }));
  const Bounced = defineEvent('mail/bounced', z.object({ to: z.string() }));
  const Requested = defineEvent('mail/requested', z.object({ to: z.string() }));
  const Send = defineEffect('mail/send', z.object({ to: z.string() }), {
    retry: RetryPolicy.fixed(5, 2),
    onSuccess: (effect, attempt: number) => Sent({ to: effect.payload.to, attempt }),
    compensate: (effect) => Bounced({ to: effect.payload.to }),
  });
  const Outbox = defineSlice('outbox', {
    policy: 'log',
    schema: z.object({ to: z.string() }),
    reducers: ({ on }) => [on(Requested, (_view, { payload }) => withEffects(none(), [Send(payload)]))],
  });

  it('a span per effect run with a child per attempt; retries, the result event and the compensation as span events', () => {
    const scheduler = new VirtualTimeScheduler();
    const session = createSession({ slices: [Outbox], events: [Requested, Sent, Bounced], scheduler });
    session.handle(Send, (effect, { attempt }) => (effect.payload.to === 'never' || attempt < 3 ? throwError(() => new Error(`busy ${attempt}`)) : of(attempt)));
    const tracing = traceSession(session, { tracer: provider.getTracer('test') });
    const requested = session.dispatch(Requested({ to: 'ada' }));
    session.dispatch(Requested({ to: 'never' }));
    scheduler.flush();
    session.dispatch(Requested({ to: 'late' })); // attempt 1 fails, its retry waits: the run is open at dispose
    expect(tracing.openSpans).toBe(1);
    tracing.dispose();
    session.dispose();

    const runs = byName(exporter.getFinishedSpans(), 'effect mail/send');
    expect(runs).toHaveLength(3);
    const [ada, never] = runs.filter((r) => r.attributes['rxslice.unfinished'] !== true).sort((x, y) => Number(x.attributes['rxslice.effect.id']) - Number(y.attributes['rxslice.effect.id']));
    expect(ada!.attributes).toMatchObject({ 'rxslice.effect.type': 'mail/send', 'rxslice.causation_seq': requested.seq });
    expect(ada!.status.code).toBe(SpanStatusCode.OK);
    expect(ada!.events.map((e) => e.name)).toEqual(['rxslice.effect.retrying', 'rxslice.effect.retrying', 'mail/sent']);
    const attempts = exporter.getFinishedSpans().filter((s) => parentOf(s) === ada!.spanContext().spanId);
    expect(attempts.map((a) => [a.name, a.attributes['rxslice.effect.attempt'], a.status.code])).toEqual([
      ['effect mail/send attempt', 1, SpanStatusCode.ERROR],
      ['effect mail/send attempt', 2, SpanStatusCode.ERROR],
      ['effect mail/send attempt', 3, SpanStatusCode.OK],
    ]);

    expect(never!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'busy 3' });
    expect(never!.attributes).toMatchObject({ 'rxslice.effect.attempts': 3, 'error.type': 'Error' });
    expect(never!.events.map((e) => e.name)).toEqual(['rxslice.effect.retrying', 'rxslice.effect.retrying', 'exception', 'mail/bounced', 'rxslice.effect.compensated']);
    const late = runs.find((r) => r.attributes['rxslice.unfinished'] === true);
    expect(late?.events.map((e) => e.name)).toEqual(['rxslice.effect.retrying']);
  });
});
