/**
 * A process that starts telemetry as a service does (see probe-telemetry.ts), works a little (a log line in a trace
 * it is handed, a span with an HTTP request to itself, a request to itself from a caller naming the handed trace as
 * sampled), then reports on stdout, after its log lines, one JSON line: what got loaded and patched.
 */
import { telemetryOn } from './probe-telemetry';
import { createServer, get, Server } from 'node:http';
import { context, trace } from '@opentelemetry/api';
import { contextFromHeaders, createLogger, flushTelemetry, inSpan, runInContext, tracerOf } from '../../src';

/** A trace this process is handed, as a message's headers would carry it (the test knows it too). */
const HANDED_TRACE = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

async function main(): Promise<void> {
  const logger = createLogger('probe');
  runInContext(
    contextFromHeaders({ traceparent: `00-${HANDED_TRACE.traceId}-${HANDED_TRACE.spanId}-01` }),
    () => logger.info('handed a trace'),
  );
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await inSpan(tracerOf('probe'), 'probe work', {}, async () => {
    logger.info('in a span of its own');
    await new Promise<void>((resolve, reject) =>
      get(`http://127.0.0.1:${port}/work?token=secret-of-the-probe`, (res) =>
        res.resume().on('end', resolve),
      ).on('error', reject),
    );
  });
  // A caller outside any span of ours, naming the handed trace (sampled) as its own.
  await new Promise<void>((resolve, reject) =>
    get(
      `http://127.0.0.1:${port}/handed`,
      { headers: { traceparent: `00-${HANDED_TRACE.traceId}-${HANDED_TRACE.spanId}-01` } },
      (res) => res.resume().on('end', resolve),
    ).on('error', reject),
  );
  const recording = trace.getTracer('probe').startSpan('probe check', {}, context.active()).isRecording();
  server.close();
  await flushTelemetry();
  const sdkModules = Object.keys(require.cache).filter((path) =>
    /@opentelemetry[+/](sdk-trace|instrumentation)/.test(path),
  );
  process.stdout.write(
    `${JSON.stringify({
      on: telemetryOn,
      sdkModules: sdkModules.length,
      httpPatched: '__wrapped' in Server.prototype.emit,
      recording,
    })}\n`,
  );
}

void main();
