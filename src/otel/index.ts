/**
 * `rxslice/otel`: OpenTelemetry tracing of a session's sagas and effects ({@link traceSession}).
 * Needs `@opentelemetry/api` (an optional peer dependency) and, to export the spans, an SDK
 * (`@opentelemetry/sdk-trace-base` or `@opentelemetry/sdk-node`) with an exporter.
 * @example
 * ```ts
 * import { traceSession } from 'rxslice/otel';
 *
 * const tracing = traceSession(session); // spans go to the global tracer provider
 * ```
 */
export { traceSession, TRACER_NAME, type TraceSessionOptions, type SessionTracing } from './trace-session';
