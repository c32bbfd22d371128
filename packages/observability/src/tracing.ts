import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanKind,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { randomBytes } from 'node:crypto';

// W3C trace context travels in AMQP and HTTP headers and on stored rows. The context manager and the propagator are
// registered whether spans are exported or not (telemetry.ts): a handler runs in its message's context, so its log
// lines and the messages it sends carry that trace either way.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

export { SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';

export type TraceHeaders = { traceparent?: string; tracestate?: string };

/** The W3C headers of the active span, or of a fresh trace when there is none (so every message is traceable). */
export function currentTraceHeaders(active: Context = context.active()): TraceHeaders {
  const carrier = activeTraceHeaders(active) ?? {};
  carrier.traceparent ??= `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
  return carrier;
}

/**
 * The W3C headers of the active span, to store with work that continues this trace later (an outbox row, a charge, a
 * webhook delivery); null when no trace is active.
 */
export function activeTraceHeaders(active: Context = context.active()): TraceHeaders | null {
  const carrier: TraceHeaders = {};
  propagation.inject(active, carrier);
  return carrier.traceparent ? carrier : null;
}

/** The context carried by incoming headers (AMQP or HTTP) or stored on a row, to run work in. */
export function contextFromHeaders(headers: Record<string, unknown> | null | undefined): Context {
  const carrier: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate']) {
    const value = headers?.[key];
    if (typeof value === 'string') carrier[key] = value;
    else if (Buffer.isBuffer(value)) carrier[key] = value.toString();
  }
  return propagation.extract(ROOT_CONTEXT, carrier);
}

export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

export function traceIdOf(ctx: Context): string | undefined {
  return trace.getSpanContext(ctx)?.traceId;
}

/** The trace and span ids of the active context, for log lines; empty outside any trace. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** A component's tracer: spans it starts are no-ops that only carry the context along until telemetry starts. */
export function tracerOf(component: string): Tracer {
  return trace.getTracer(component);
}

export interface SpanSettings {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
}

/**
 * Runs `work` in a new span, a child of `parent` (the active context by default). The span ends when `work` settles;
 * a failure marks it as an error with the failure's name and message.
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  settings: SpanSettings,
  work: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  const span = tracer.startSpan(name, settings, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: describeFailure(err) });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs `work` in a new span that continues a stored trace (a new trace when nothing was stored), linked to the span
 * active now: what set the work off (a PSP callback, a chain scan) has a trace of its own.
 */
export function inStoredTrace<T>(
  tracer: Tracer,
  name: string,
  stored: TraceHeaders | null,
  settings: SpanSettings,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const trigger = trace.getSpanContext(context.active());
  const links = trigger && trace.isSpanContextValid(trigger) ? [{ context: trigger }] : [];
  return inSpan(tracer, name, { ...settings, links }, work, contextFromHeaders(stored));
}

/** Runs `fn` with tracing suppressed: no span, and no trace header on the requests it sends (to third parties). */
export function untraced<T>(fn: () => T): T {
  return context.with(suppressTracing(context.active()), fn);
}

function describeFailure(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
