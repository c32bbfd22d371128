import { startTelemetry } from '../../src';

// Imported first by the probe, as a service's main.ts imports its telemetry.ts: `on <OTLP URL>` exports there in the
// default encoding, `off` sets nothing.
const [mode, endpoint] = process.argv.slice(2);
export const telemetryOn = startTelemetry(
  mode === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'telemetry-probe' } : {},
  'probe',
);
