import type { EventEmitter } from 'node:events';
import {
  context,
  defaultTextMapGetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TextMapPropagator,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { randomIdText } from '@gateway/contracts';

/** Reads and writes W3C trace context on our own carriers: AMQP headers and stored rows. */
const traceContext = new W3CTraceContextPropagator();

/**
 * The process-wide propagator: it writes our trace headers and reads none. The HTTP instrumentation reads an incoming
 * request's headers through it, and our HTTP listeners are public (the API, the PSP's callbacks): a caller's
 * `traceparent` must neither parent our request's span nor decide whether it is sampled. It becomes a link instead
 * (inboundTraceLink). Our own carriers are read by contextFromHeaders.
 */
class WriteOnlyPropagator implements TextMapPropagator {
  inject(ctx: Context, carrier: unknown, setter: TextMapSetter): void {
    traceContext.inject(ctx, carrier, setter);
  }

  extract(ctx: Context): Context {
    return ctx;
  }

  fields(): string[] {
    return traceContext.fields();
  }
}

// W3C trace context travels in AMQP headers and on stored rows. The context manager and the propagator are registered
// whether spans are exported or not (telemetry.ts): a handler runs in its message's context, so its log lines and the
// messages it sends carry that trace either way.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new WriteOnlyPropagator());

export { SpanKind, SpanStatusCode, type Attributes, type Span };

export type TraceHeaders = { traceparent?: string; tracestate?: string };

/** The W3C headers of the active span, or of a fresh trace when there is none (so every message is traceable). */
export function currentTraceHeaders(active: Context = context.active()): TraceHeaders {
  const carrier = activeTraceHeaders(active) ?? {};
  carrier.traceparent ??= `00-${randomIdText(16, 'hex')}-${randomIdText(8, 'hex')}-01`;
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

/** The context carried by a message's headers or stored on a row, to run work in. */
export function contextFromHeaders(headers: Record<string, unknown> | null | undefined): Context {
  const carrier: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate']) {
    const value = headers?.[key];
    if (typeof value === 'string') carrier[key] = value;
    else if (Buffer.isBuffer(value)) carrier[key] = value.toString();
  }
  return traceContext.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/** The trace an incoming HTTP request says it belongs to (its `traceparent`), as a link: never as its parent. */
export function inboundTraceLink(headers: Record<string, unknown>): Link | undefined {
  const spanContext = trace.getSpanContext(contextFromHeaders(headers));
  return spanContext && trace.isSpanContextValid(spanContext) ? { context: spanContext } : undefined;
}

/**
 * Runs the handling of an incoming request in a trace of its own: its span's with tracing on (always a root), else a
 * W3C context made up for it, so that its log lines and every message it sends carry one trace id either way. The
 * request's and the answer's events (its body arriving, the answer sent) run in it too.
 */
export function inRequestTrace(request: EventEmitter, response: EventEmitter, handle: () => void): void {
  const active = context.active();
  const spanContext = trace.getSpanContext(active);
  const ctx =
    spanContext && trace.isSpanContextValid(spanContext)
      ? active
      : trace.setSpanContext(active, {
          traceId: randomIdText(16, 'hex'),
          spanId: randomIdText(8, 'hex'),
          traceFlags: TraceFlags.SAMPLED,
        });
  context.bind(ctx, request);
  context.bind(ctx, response);
  context.with(ctx, handle);
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

/**
 * Runs a call to a system outside ours (the PSP, a Solana RPC node, a price source) in one CLIENT span that names
 * only the scheme, host and port of `baseUrl`, and what the call is for. The HTTP requests it makes go untraced: a
 * provider's key may sit in the path of its URL (Alchemy's `/v2/<key>`, QuickNode's `/<token>/`), and no trace header
 * of ours goes to a third party (as for webhooks).
 */
export function inOutgoingCall<T>(
  tracer: Tracer,
  name: string,
  baseUrl: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return inSpan(
    tracer,
    name,
    { kind: SpanKind.CLIENT, attributes: { ...outgoingTarget(baseUrl), ...attributes } },
    (span) => untraced(() => work(span)),
  );
}

/** The semantic-convention attributes of where a call goes: scheme, host and port, never path, query or user. */
export function outgoingTarget(baseUrl: string): Attributes {
  if (!URL.canParse(baseUrl)) return {};
  const url = new URL(baseUrl);
  const scheme = url.protocol.slice(0, -1);
  return {
    'url.scheme': scheme,
    'server.address': url.hostname,
    'server.port': Number(url.port || (scheme === 'https' ? 443 : 80)),
  };
}

function describeFailure(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
