import { diag } from '@opentelemetry/api';
import { Joi, telemetryEnv, type TelemetryConfig } from '@gateway/config';
import { createLogger } from './logger';
import type * as TelemetrySdk from './telemetry-sdk';

/** A stopping service waits this long at most for the collector to take what is buffered. */
const FLUSH_TIMEOUT_MS = 5000;

/** A service's config: the OTEL_* variables it read, and its log level. */
export type TelemetrySettings = Partial<TelemetryConfig> & { LOG_LEVEL?: string };

const telemetrySchema = Joi.object<TelemetryConfig>(telemetryEnv);

let provider: ReturnType<typeof TelemetrySdk.startTracing> | undefined;

/**
 * Starts tracing for this process when an OTLP endpoint is configured (telemetry-sdk.ts). The instrumentations patch
 * http, express, pg and ioredis only if registered before those are loaded: each service's main.ts imports its
 * telemetry.ts first. Without an endpoint nothing is loaded or registered: spans stay no-ops that carry the
 * propagated context along. Returns whether tracing is on.
 */
export function startTelemetry(settings: TelemetrySettings, serviceName: string): boolean {
  // A config built by hand (tests) may leave out what has a default.
  const config: TelemetryConfig = Joi.attempt(settings, telemetrySchema, { stripUnknown: true });
  const url = tracesUrl(config);
  if (provider || url === undefined) return provider !== undefined;
  // Loaded here, not imported: with tracing off the SDK costs nothing, not even its loading.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./telemetry-sdk') as typeof TelemetrySdk;
  provider = sdk.startTracing({
    url,
    protocol: config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL,
    serviceName: config.OTEL_SERVICE_NAME,
    defaultServiceName: serviceName,
    resourceAttributes: parseKeyValues(config.OTEL_RESOURCE_ATTRIBUTES),
    headers: parseKeyValues(config.OTEL_EXPORTER_OTLP_HEADERS),
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerRatio: config.OTEL_TRACES_SAMPLER_ARG,
    logger: createLogger(`${serviceName}:opentelemetry`, settings.LOG_LEVEL),
  });
  return true;
}

/**
 * Exports what is still buffered and stops tracing (a stopping service calls it last); a collector that does not
 * answer gets FLUSH_TIMEOUT_MS. Nothing to do when tracing is off.
 */
export async function flushTelemetry(): Promise<void> {
  const running = provider;
  provider = undefined;
  if (!running) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
  });
  const flushed = running
    .forceFlush()
    .then(() => running.shutdown())
    .catch((err: unknown) => diag.warn('traces not flushed', err));
  await Promise.race([flushed, timeout]);
  clearTimeout(timer);
}

/**
 * Starts telemetry when `entry` (a service's main.ts) is the module this process was started with; tests that import
 * main.ts for its start function trace nothing. `load` reads the config only then.
 */
export function startTelemetryOfEntry(
  entry: string,
  serviceName: string,
  load: () => TelemetrySettings,
): void {
  if (require.main?.filename === entry) startTelemetry(load(), serviceName);
}

/** `key=value,key=value` with percent-encoded values (OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS). */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  if (!text) return {};
  return Object.fromEntries(
    text.split(',').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())];
    }),
  );
}

/** The OTLP/HTTP traces URL: the signal's own endpoint as it is, else `/v1/traces` under the base endpoint. */
export function tracesUrl(config: Partial<TelemetryConfig>): string | undefined {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
}
