import Joi from 'joi';

/*
 * OpenTelemetry tracing, under the OTel SDK's own variable names (operators and collectors know them). One fragment
 * every service's config includes; tracing is off, and costs nothing, unless an OTLP endpoint is set.
 */

export const otlpProtocols = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof otlpProtocols)[number];

/** The samplers of the OTel specification that need no remote service. */
export const tracesSamplers = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
export type TracesSampler = (typeof tracesSamplers)[number];

export interface TelemetryConfig {
  /** Base URL of an OTLP/HTTP receiver (a collector's :4318); `/v1/traces` is appended. Unset: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** The full traces URL, taken as it is; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_PROTOCOL: OtlpProtocol;
  /** Wins over OTEL_EXPORTER_OTLP_PROTOCOL for traces. */
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: OtlpProtocol;
  /** Unset: the service's own name (`payment`, `pix-adapter`...). */
  OTEL_SERVICE_NAME?: string;
  /** More resource attributes, `key=value,key=value` (values percent-encoded), e.g. `deployment.environment.name=prod`. */
  OTEL_RESOURCE_ATTRIBUTES?: string;
  /**
   * Headers sent with every export, `key=value,key=value` (values percent-encoded), e.g. a hosted collector's
   * `authorization=Bearer%20...`: a secret.
   */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_TRACES_SAMPLER: TracesSampler;
  /** The ratio of new traces the `*traceidratio` samplers keep, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: number;
}

const otlpUrl = Joi.string().uri({ scheme: ['http', 'https'] });
const otlpProtocol = Joi.string()
  .valid(...otlpProtocols)
  .messages({
    'any.only':
      "{{#label}} must be http/protobuf or http/json (gRPC is not supported: point it at the collector's OTLP/HTTP port, 4318)",
  });
const RESOURCE_ATTRIBUTE = '[^=,\\s]+=[^,]*';
/** `key=value,key=value`, as OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS take them. */
const keyValueList = (label: string) =>
  Joi.string()
    .pattern(new RegExp(`^${RESOURCE_ATTRIBUTE}(,${RESOURCE_ATTRIBUTE})*$`))
    .messages({ 'string.pattern.base': `{{#label}} must look like ${label}` });

export const telemetryEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl.optional(),
  // http/protobuf is the specification's default.
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.default('http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_SERVICE_NAME: Joi.string().max(200).optional(),
  OTEL_RESOURCE_ATTRIBUTES: keyValueList('key=value,key=value').optional(),
  // Not echoed in its message: it holds credentials.
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList('name=value,name=value (values percent-encoded)').optional(),
  OTEL_TRACES_SAMPLER: Joi.string()
    .valid(...tracesSamplers)
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: Joi.number().min(0).max(1).default(1),
};
