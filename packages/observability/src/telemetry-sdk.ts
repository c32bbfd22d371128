import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { diag, DiagLogLevel, SpanKind, type Attributes } from '@opentelemetry/api';
import type { OtlpProtocol, TracesSampler } from '@gateway/config';
import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import {
  ATTR_SERVICE_NAME,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from './logger';
import { inboundTraceLink } from './tracing';

/** Probes and scrapes: requests no one wants a trace of. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface TracingSettings {
  url: string;
  protocol: OtlpProtocol;
  /** OTEL_SERVICE_NAME: wins over a `service.name` in the resource attributes, which wins over the default. */
  serviceName?: string;
  defaultServiceName: string;
  /** From OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes: Record<string, string>;
  sampler: TracesSampler;
  samplerRatio: number;
  /** From OTEL_EXPORTER_OTLP_HEADERS: sent with every export (a collector's credentials). */
  headers: Record<string, string>;
  /** Where the SDK's own problems (a collector that refuses the spans) are reported. */
  logger: Logger;
}

/**
 * The OTel SDK with a batch exporter over OTLP/HTTP, registered globally, and the http, express, pg, ioredis and undici
 * instrumentations. Loaded only when tracing is on.
 */
export function startTracing(settings: TracingSettings): NodeTracerProvider {
  const exporter =
    settings.protocol === 'http/json'
      ? new OtlpJsonTraceExporter({ url: settings.url, headers: settings.headers })
      : new OtlpProtobufTraceExporter({ url: settings.url, headers: settings.headers });
  const attributes = settings.resourceAttributes;
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        ...attributes,
        [ATTR_SERVICE_NAME]:
          settings.serviceName ?? attributes[ATTR_SERVICE_NAME] ?? settings.defaultServiceName,
        // Replicas of one service are told apart by it (the launcher names them; elsewhere one per process start).
        'service.instance.id': attributes['service.instance.id'] ?? randomUUID(),
      }),
    ),
    sampler: sampler(settings.sampler, settings.samplerRatio),
    spanProcessors: [new UrlCredentialsRedaction(), new BatchSpanProcessor(exporter)],
  });
  // The context manager and the propagator are registered already (tracing.ts).
  provider.register({ contextManager: null, propagator: null });
  const report = (message: string, ...args: unknown[]) =>
    settings.logger.warn({ details: args.map(String) }, message);
  diag.setLogger(
    { error: report, warn: report, info: () => undefined, debug: () => undefined, verbose: () => undefined },
    DiagLogLevel.WARN,
  );
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          UNTRACED_PATHS.has((request.url ?? '').split('?')[0]!),
        // A call out is traced inside a traced operation only: pollers and the exporter itself start no trace.
        requireParentforOutgoingSpans: true,
        // A request's span is a root (see tracing.ts): the trace its caller names is a link.
        requestHook: (span, request) => {
          const link = request instanceof IncomingMessage ? inboundTraceLink(request.headers) : undefined;
          if (link) span.addLink(link);
        },
      }),
      // Express names the request's span after its route (`POST /v1/payments`); a span per router, middleware and
      // handler would add nothing that span and the calls below it do not say.
      new ExpressInstrumentation({ ignoreLayersType: Object.values(ExpressLayerType) }),
      // Queries of pollers (the outbox relay, the delivery worker) outside any operation would each be a trace.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // The command only: keys and arguments may carry identifiers and values.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  return provider;
}

function sampler(name: TracesSampler, ratio: number): Sampler {
  const roots: Record<string, Sampler> = {
    always_on: new AlwaysOnSampler(),
    always_off: new AlwaysOffSampler(),
    traceidratio: new TraceIdRatioBasedSampler(ratio),
  };
  const parentBased = name.startsWith('parentbased_');
  const root = roots[parentBased ? name.slice('parentbased_'.length) : name]!;
  return parentBased ? new ParentBasedSampler({ root }) : root;
}

/**
 * Query values and user info in a URL may be credentials (the PSP callback's token), and so may the path of a URL we
 * call (an RPC provider's `/v2/<key>`): they are replaced as a span starts, whichever instrumentation set them, so no
 * exporter ever sees them.
 */
class UrlCredentialsRedaction implements SpanProcessor {
  onStart(span: Span): void {
    span.setAttributes(redactedUrlAttributes(span.kind, span.attributes));
  }

  onEnd(): void {}

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}

/**
 * What replaces a span's URL attributes (stable and older HTTP semantic conventions): every query value and any user
 * info redacted; for a call out (CLIENT), whose URL is a third party's, the path too: only scheme, host and port stay.
 * Our own routes' paths (SERVER) stay.
 */
export function redactedUrlAttributes(kind: SpanKind, attributes: Attributes): Attributes {
  const outgoing = kind === SpanKind.CLIENT;
  const replaced: Attributes = {};
  const replace = (key: string, redact: (value: string) => string) => {
    const value = attributes[key];
    if (typeof value === 'string') replaced[key] = redact(value);
  };
  for (const key of [ATTR_URL_FULL, 'http.url']) replace(key, outgoing ? urlOrigin : redactUrl);
  for (const key of [ATTR_URL_PATH, 'http.target'])
    replace(
      key,
      outgoing ? () => 'REDACTED' : (target) => target.replace(/\?.*$/s, (query) => redactQuery(query)),
    );
  replace(ATTR_URL_QUERY, outgoing ? () => 'REDACTED' : redactQuery);
  return replaced;
}

/** Scheme, host and port of a URL: nothing a path, query or user info could hide a credential in. */
function urlOrigin(text: string): string {
  return URL.canParse(text) ? new URL(text).origin : 'REDACTED';
}

/** A URL (or a query string) with every query value and any user info replaced by `REDACTED`. */
export function redactUrl(text: string): string {
  if (!/^[a-z][a-z\d+.-]*:\/\//i.test(text)) return redactQuery(text);
  try {
    const url = new URL(text);
    url.username = '';
    url.password = '';
    url.search = redactQuery(url.search);
    return url.toString();
  } catch {
    return 'REDACTED';
  }
}

function redactQuery(query: string): string {
  const names = [...new URLSearchParams(query).keys()];
  if (names.length === 0) return query;
  const redacted = names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
  return query.startsWith('?') ? `?${redacted}` : redacted;
}
