// rxslice/otel through the OTLP/HTTP exporter to a receiver (node:http) in the test: the spans
// arrive as OTLP JSON with their parents, events, attributes and causation links.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { of, VirtualTimeScheduler } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEffect, defineEvent, defineSaga, defineSlice, none, step, withEffects } from '../../src/index';
import { traceSession } from '../../src/otel/index';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  events?: { name: string }[];
  links?: { traceId: string; spanId: string; attributes?: { key: string; value: Record<string, unknown> }[] }[];
  status?: { code?: number };
}

let server: Server;
let url: string;
const received: { path: string; contentType: string | undefined; spans: OtlpSpan[] }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], spans: body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const attr = (span: OtlpSpan, key: string): unknown => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};

describe('traceSession with the OTLP/HTTP exporter', () => {
  it('sends the saga and effect spans to an OTLP receiver, a saga started by an effect\'s result linked to that effect', async () => {
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))] });
    const Ordered = defineEvent('shop/ordered', z.object({ id: z.string() }));
    const Charged = defineEvent('shop/charged', z.object({ id: z.string() }));
    const Charge = defineEffect('shop/charge', z.object({ id: z.string() }), { onSuccess: (effect) => Charged({ id: effect.payload.id }) });
    const Orders = defineSlice('orders', {
      policy: 'log',
      schema: z.object({ id: z.string() }),
      reducers: ({ on }) => [on(Ordered, (_v, { payload }) => withEffects(none(), [Charge(payload)]))],
    });
    const Ship = defineSaga('ship', { input: z.object({ id: z.string() }), startOn: Charged, steps: [step('pack', { run: () => of(1) }), step('send', { run: () => of(2) })] });
    const session = createSession({ slices: [Orders], events: [Ordered, Charged], sagas: [Ship], scheduler: new VirtualTimeScheduler() });
    session.handle(Charge, () => of('ok'));
    const tracing = traceSession(session, { tracer: provider.getTracer('rxslice') });
    session.dispatch(Ordered({ id: 'o1' }));
    tracing.dispose();
    session.dispose();
    await provider.forceFlush();
    await provider.shutdown();

    expect(received.every((r) => r.path === '/v1/traces' && r.contentType === 'application/json')).toBe(true);
    const spans = received.flatMap((r) => r.spans);
    expect(spans.map((s) => s.name).sort()).toEqual(['effect shop/charge', 'effect shop/charge attempt', 'saga ship', 'saga ship step pack', 'saga ship step send']);
    const find = (name: string): OtlpSpan => spans.find((s) => s.name === name)!;
    const effect = find('effect shop/charge');
    const saga = find('saga ship');
    expect(find('effect shop/charge attempt').parentSpanId).toBe(effect.spanId);
    expect(find('saga ship step pack').parentSpanId).toBe(saga.spanId);
    expect(effect.events?.map((e) => e.name)).toEqual(['shop/charged']);
    expect(attr(saga, 'rxslice.saga.name')).toBe('ship');
    expect(attr(saga, 'rxslice.causation_seq')).toBeDefined();
    // The saga was started by the effect's result event: a causation link to the effect's span.
    expect(saga.links).toEqual([expect.objectContaining({ traceId: effect.traceId, spanId: effect.spanId })]);
    expect(saga.links?.[0]?.attributes).toEqual([{ key: 'rxslice.link', value: { stringValue: 'causation' } }]);
    expect(saga.status?.code).toBe(1); // OK
  });
});
