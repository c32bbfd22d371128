import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '@gateway/testkit';

const probe = join(__dirname, 'support/telemetry-probe.ts');
const handed = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

interface ProbeReport {
  on: boolean;
  sdkModules: number;
  httpPatched: boolean;
  recording: boolean;
}

/** Runs the probe as its own process (the way a service starts) and reads its log lines and its report. */
async function runProbe(
  ...args: string[]
): Promise<{ logs: Array<Record<string, unknown>>; report: ProbeReport }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', probe, ...args], {
    cwd: join(__dirname, '../../..'),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logs: lines.slice(0, -1), report: lines.at(-1) as unknown as ProbeReport };
}

describe('telemetry of a process', () => {
  let otlp: OtlpReceiver;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });

  afterAll(() => otlp.close());

  test('without an OTLP endpoint nothing is loaded, patched or recorded, and log lines still carry a trace handed to it', async () => {
    const { logs, report } = await runProbe('off');
    expect(report).toEqual({ on: false, sdkModules: 0, httpPatched: false, recording: false });
    expect(logs.find((line) => line.msg === 'handed a trace')).toMatchObject({
      trace_id: handed.traceId,
      span_id: handed.spanId,
    });
  }, 30_000);

  test('with an endpoint it exports OTLP/HTTP protobuf by default: HTTP out and in parented across the request, the query redacted, log lines carrying the span ids', async () => {
    const { logs, report } = await runProbe('on', otlp.url);
    expect(report).toMatchObject({ on: true, httpPatched: true, recording: true });
    expect(new Set(otlp.contentTypes)).toEqual(new Set(['application/x-protobuf']));
    const work = otlp.spans.find((span) => span.name === 'probe work')!;
    const client = otlp.spans.find((span) => span.kind === SPAN_KIND.client)!;
    const server = otlp.spans.find((span) => span.kind === SPAN_KIND.server)!;
    expect(work.service).toBe('telemetry-probe');
    expect(work.parentSpanId).toBeUndefined();
    expect(work.resource['service.instance.id']).toEqual(expect.any(String));
    expect(client).toMatchObject({ traceId: work.traceId, parentSpanId: work.spanId });
    expect(client.attributes['url.full']).toBe(
      `http://127.0.0.1:${String(client.attributes['server.port'])}/work?token=REDACTED`,
    );
    expect(server).toMatchObject({
      traceId: work.traceId,
      parentSpanId: client.spanId,
      attributes: { 'url.path': '/work', 'url.query': 'token=REDACTED' },
    });
    expect(JSON.stringify(otlp.spans)).not.toContain('secret-of-the-probe');
    expect(logs.find((line) => line.msg === 'in a span of its own')).toMatchObject({
      trace_id: work.traceId,
      span_id: work.spanId,
    });
  }, 30_000);
});
