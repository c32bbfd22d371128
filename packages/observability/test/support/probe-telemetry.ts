import { startTelemetry } from '../../src';

// Imported first by the probe, as a service's main.ts imports its telemetry.ts: `on <OTLP URL>` exports there in the
// default encoding; `sampled-out <OTLP URL>` too, under another name, keeping no new trace (ratio 0); `off` sets
// nothing.
const [mode, endpoint] = process.argv.slice(2);
const settings = {
  on: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'telemetry-probe' },
  'sampled-out': {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_SERVICE_NAME: 'telemetry-probe-sampled-out',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' as const,
    OTEL_TRACES_SAMPLER_ARG: 0,
  },
}[mode ?? ''];
export const telemetryOn = startTelemetry(settings ?? {}, 'probe');
