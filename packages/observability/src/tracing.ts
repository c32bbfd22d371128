import { context, propagation, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { randomBytes } from 'node:crypto';

// W3C trace context travels in AMQP headers and HTTP headers; an OTel SDK/exporter can be plugged in later
// without touching call sites, because everything goes through the global propagation API.
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

export type TraceHeaders = { traceparent?: string; tracestate?: string };

/** The W3C headers of the active span, or of a fresh trace when there is none (so every message is traceable). */
export function currentTraceHeaders(active: Context = context.active()): TraceHeaders {
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  if (!carrier.traceparent) {
    carrier.traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
  }
  return carrier;
}

/** The context carried by incoming headers (AMQP or HTTP), to run a handler in. */
export function contextFromHeaders(headers: Record<string, unknown> | undefined): Context {
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
