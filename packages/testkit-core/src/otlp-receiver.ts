import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import protobuf from 'protobufjs';

/** A span as an OTLP/HTTP exporter sent it, the same shape whichever encoding carried it. */
export interface ExportedSpan {
  /** The resource's `service.name`. */
  service: string;
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code: number; message?: string };
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: what OTEL_EXPORTER_OTLP_ENDPOINT is set to (exporters add `/v1/traces`). */
  url: string;
  /** Every span received so far, in arrival order. */
  spans: ExportedSpan[];
  /** The content type of every export request received (`application/json`, `application/x-protobuf`). */
  contentTypes: string[];
  close(): Promise<void>;
}

/** Decodes `http/protobuf` export requests: otlp-trace.proto holds the parts of the OTLP schema a test reads. */
const exportRequest = protobuf
  .loadSync(join(__dirname, 'otlp-trace.proto'))
  .lookupType('otlp.ExportTraceServiceRequest');

/** An OTLP/HTTP traces receiver on 127.0.0.1 that keeps what it is sent, in `http/json` or `http/protobuf`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ExportedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(contentType);
      const body = Buffer.concat(chunks);
      try {
        const request: RawRequest =
          contentType === 'application/x-protobuf'
            ? (exportRequest.toObject(exportRequest.decode(body), { longs: Number }) as RawRequest)
            : (JSON.parse(body.toString('utf8')) as RawRequest);
        spans.push(...spansOf(request));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        return;
      }
      // An empty ExportTraceServiceResponse: full success, in the request's encoding.
      if (contentType === 'application/x-protobuf')
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An export request as OTLP/JSON spells it, or as protobufjs decodes it (ids as bytes, the rest alike). */
type Id = string | Uint8Array | undefined;
interface RawValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: RawValue[] };
  kvlistValue?: { values?: RawAttributes };
  /** Base64 in OTLP/JSON. */
  bytesValue?: Uint8Array | string;
}
type RawAttributes = Array<{ key: string; value?: RawValue }> | undefined;
interface RawRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: RawAttributes };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId?: Id;
        spanId?: Id;
        parentSpanId?: Id;
        name?: string;
        kind?: number;
        attributes?: RawAttributes;
        events?: Array<{ name?: string; attributes?: RawAttributes }>;
        links?: Array<{ traceId?: Id; spanId?: Id }>;
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

function spansOf(request: RawRequest): ExportedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service: String(resource['service.name']),
        resource,
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        ...(hex(span.parentSpanId) ? { parentSpanId: hex(span.parentSpanId) } : {}),
        name: span.name ?? '',
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((event) => ({
          name: event.name ?? '',
          attributes: attributesOf(event.attributes),
        })),
        links: (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
        status: { code: span.status?.code ?? 0, message: span.status?.message },
      })),
    );
  });
}

/** OTLP/JSON writes ids in hex; protobuf carries their bytes. */
function hex(id: Id): string {
  if (id === undefined) return '';
  return typeof id === 'string' ? id.toLowerCase() : Buffer.from(id).toString('hex');
}

function attributesOf(attributes: RawAttributes): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: RawValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue !== undefined) return attributesOf(value.kvlistValue.values);
  if (value.bytesValue !== undefined)
    return (
      typeof value.bytesValue === 'string'
        ? Buffer.from(value.bytesValue, 'base64')
        : Buffer.from(value.bytesValue)
    ).toString('utf8');
  return undefined;
}
