import { Joi, loadConfig, telemetryEnv, type ConfigError, type TelemetryConfig } from '../src';

const schema = Joi.object<TelemetryConfig>(telemetryEnv);

function refusal(env: Record<string, string>): { variables: string[]; message: string } | undefined {
  try {
    loadConfig(schema, env);
    return undefined;
  } catch (err) {
    return { variables: (err as ConfigError).variables, message: (err as ConfigError).message };
  }
}

describe('the OTEL_* variables every service reads', () => {
  test('unset, tracing is off, and the defaults are the specification’s: protobuf, parent-based always on', () => {
    expect(loadConfig(schema, {})).toEqual({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_TRACES_SAMPLER_ARG: 1,
    });
  });

  test('an endpoint, either encoding, a service name, resource attributes and a ratio sampler are taken as given', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example.com/custom/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      OTEL_SERVICE_NAME: 'payment-eu',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,service.instance.id=payment%232',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    };
    expect(loadConfig(schema, env)).toEqual({ ...env, OTEL_TRACES_SAMPLER_ARG: 0.25 });
  });

  test('gRPC, or any encoding but http/protobuf and http/json, is refused at start, naming the variable and why', () => {
    for (const protocol of ['grpc', 'http/protobuf ', 'json']) {
      const refused = refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      expect(refused?.variables).toEqual(['OTEL_EXPORTER_OTLP_PROTOCOL']);
      expect(refused?.message).toContain('gRPC is not supported');
    }
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })?.variables).toEqual([
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    ]);
  });

  test('an endpoint that is not an http(s) URL, a sampler outside the specification and a ratio outside 0..1 are refused together', () => {
    expect(
      refusal({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317',
        OTEL_TRACES_SAMPLER: 'jaeger_remote',
        OTEL_TRACES_SAMPLER_ARG: '1.5',
        OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id',
      })?.variables.sort(),
    ).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      'OTEL_RESOURCE_ATTRIBUTES',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
    ]);
  });

  test('export headers (a collector credential) are taken as name=value pairs; a malformed list is refused without echoing it', () => {
    const headers = 'authorization=Bearer%20s3cr3t-collector-token,x-tenant=gateway';
    expect(loadConfig(schema, { OTEL_EXPORTER_OTLP_HEADERS: headers })).toMatchObject({
      OTEL_EXPORTER_OTLP_HEADERS: headers,
    });
    const refused = refusal({ OTEL_EXPORTER_OTLP_HEADERS: 'Bearer s3cr3t-collector-token' });
    expect(refused?.variables).toEqual(['OTEL_EXPORTER_OTLP_HEADERS']);
    expect(refused?.message).not.toContain('s3cr3t');
  });
});
