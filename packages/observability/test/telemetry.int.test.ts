import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '@gateway/testkit-core';

const probe = join(__dirname, 'support/telemetry-probe.ts');
const handedTrace = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

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
      trace_id: handedTrace.traceId,
      span_id: handedTrace.spanId,
    });
  }, 30_000);

  test('with an endpoint it exports OTLP/HTTP protobuf by default: HTTP out under its span, the query redacted, the path of the call out too; HTTP in a root linked to the caller; log lines carrying the span ids', async () => {
    const { logs, report } = await runProbe('on', otlp.url);
    expect(report).toMatchObject({ on: true, httpPatched: true, recording: true });
    expect(new Set(otlp.contentTypes)).toEqual(new Set(['application/x-protobuf']));
    const work = otlp.spans.find((span) => span.name === 'probe work')!;
    const client = otlp.spans.find((span) => span.kind === SPAN_KIND.client)!;
    const server = otlp.spans.find(
      (span) => span.kind === SPAN_KIND.server && span.attributes['url.path'] === '/work',
    )!;
    expect(work.service).toBe('telemetry-probe');
    expect(work.parentSpanId).toBeUndefined();
    expect(work.resource['service.instance.id']).toEqual(expect.any(String));
    expect(client).toMatchObject({ traceId: work.traceId, parentSpanId: work.spanId });
    expect(client.attributes['url.full']).toBe(
      `http://127.0.0.1:${String(client.attributes['server.port'])}`,
    );
    expect(JSON.stringify(client.attributes)).not.toContain('/work');
    // A caller's traceparent (here our own client's) never parents a request's span: it is a link.
    expect(server.parentSpanId).toBeUndefined();
    expect(server.traceId).not.toBe(work.traceId);
    expect(server.links).toEqual([expect.objectContaining({ traceId: work.traceId, spanId: client.spanId })]);
    expect(server.attributes).toMatchObject({ 'url.path': '/work', 'url.query': 'token=REDACTED' });
    expect(JSON.stringify(otlp.spans)).not.toContain('secret-of-the-probe');
    // A caller's trace, even sampled, is a link of a root span.
    const handed = otlp.spans.find((span) => span.attributes['url.path'] === '/handed')!;
    expect(handed.parentSpanId).toBeUndefined();
    expect(handed.traceId).not.toBe(handedTrace.traceId);
    expect(handed.links).toEqual([handedTrace]);
    expect(logs.find((line) => line.msg === 'in a span of its own')).toMatchObject({
      trace_id: work.traceId,
      span_id: work.spanId,
    });
  }, 30_000);

  test("a caller's sampled traceparent does not make a request sampled that the sampler leaves out", async () => {
    const { report } = await runProbe('sampled-out', otlp.url);
    expect(report).toMatchObject({ on: true, httpPatched: true, recording: false });
    // Exported, it would be here by now: the probe flushed before it reported.
    expect(otlp.spans.filter((span) => span.service === 'telemetry-probe-sampled-out')).toEqual([]);
  }, 30_000);
});
