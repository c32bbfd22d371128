import { randomBytes } from 'node:crypto';
import { setFeeRule } from '@gateway/contracts';
import type { Broker } from '@gateway/messaging';
import { activeTraceIds } from '@gateway/observability';
import {
  connectTestClient,
  deleteBrokerNames,
  isolatedEnvironment,
  SPAN_KIND,
  startOtlpReceiver,
  waitFor,
  type IsolatedEnvironment,
  type OtlpReceiver,
} from '@gateway/testkit';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { ADMIN_TOKEN, deleteRedisKeys, FakeServices } from './support/harness';

/** A trace a caller says its request belongs to, sampled: it must neither parent nor sample the gateway's work. */
const callersTrace = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') };
const callersTraceparent = `00-${callersTrace.traceId}-${callersTrace.spanId}-01`;

describe('each gateway request is a trace of its own (the gateway process, as the launcher runs it)', () => {
  let env: IsolatedEnvironment;
  let client: Broker;
  let fakes: FakeServices;
  let gateway: GatewayProcess | undefined;
  /** The trace each fee-rule RPC was handled in, as the handler's context says. */
  let rpcTraceIds: Array<string | undefined>;

  beforeEach(async () => {
    env = await isolatedEnvironment('gw-trace');
    client = await connectTestClient(env.config, 'gw-trace-fakes');
    fakes = await FakeServices.start(client, ['payment']);
    rpcTraceIds = [];
    fakes.on(setFeeRule, async (rule) => {
      rpcTraceIds.push(activeTraceIds().trace_id);
      return rule;
    });
  });

  afterEach(async () => {
    gateway?.child.kill('SIGKILL');
    gateway = undefined;
    await client.close();
    await deleteBrokerNames(env.config.AMQP_PREFIX);
    await deleteRedisKeys(env.config.REDIS_URL, env.config.REDIS_PREFIX);
    await env.database.drop();
  });

  /** An admin call with a request id of the test's choosing, and perhaps a caller's traceparent. */
  const admin = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${gateway!.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as Record<string, string>;
  };

  const setPixFee = (businessId: string, requestId: string, headers: Record<string, string> = {}) =>
    admin(
      'PUT',
      `/businesses/${businessId}/fee-rules/pix`,
      { percent_bps: 99, fixed_centavos: 0 },
      { 'x-request-id': requestId, ...headers },
    );

  test('with tracing off, a request runs in a trace id of its own: its log lines carry it, its RPC carries it, and a caller-given traceparent is not taken', async () => {
    gateway = await startGatewayProcess(env, { LOG_LEVEL: 'debug' });
    const business = await admin('POST', '/businesses', { name: 'Loja Sem Rastreio' });
    await setPixFee(business.business_id!, 'trace-off-1');
    await setPixFee(business.business_id!, 'trace-off-2', { traceparent: callersTraceparent });

    // Logged as each answer goes out: wait for the lines to arrive.
    const served = await waitFor(() => {
      const lines = ['trace-off-1', 'trace-off-2'].map((requestId) =>
        gateway!.logged('request served').find((line) => line.request_id === requestId),
      );
      return lines.every(Boolean) && (lines as Array<Record<string, unknown>>);
    });
    for (const line of served)
      expect(line).toMatchObject({
        trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    expect(rpcTraceIds).toEqual(served.map((line) => line.trace_id));
    expect(new Set([...rpcTraceIds, callersTrace.traceId]).size).toBe(3);
  }, 90_000);

  test("with tracing on, a request's span is a root whatever the caller's traceparent says, linked to the caller's trace; its RPC is in its trace", async () => {
    const otlp: OtlpReceiver = await startOtlpReceiver();
    try {
      gateway = await startGatewayProcess(env, {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      const business = await admin('POST', '/businesses', { name: 'Loja Rastreada' });
      await setPixFee(business.business_id!, 'trace-on', { traceparent: callersTraceparent });

      const request = await waitFor(
        () =>
          otlp.spans.find(
            (span) =>
              span.kind === SPAN_KIND.server && String(span.attributes['http.route']).includes('fee-rules'),
          ),
        { timeoutMs: 15_000, what: 'the span of the fee-rule request' },
      );
      expect(request.parentSpanId).toBeUndefined();
      expect(request.traceId).not.toBe(callersTrace.traceId);
      expect(request.links).toEqual([callersTrace]);
      expect(rpcTraceIds).toEqual([request.traceId]);
      const call = await waitFor(() => otlp.spans.find((span) => span.name === `call ${setFeeRule.name}`), {
        timeoutMs: 15_000,
        what: 'the span of the RPC',
      });
      expect(call).toMatchObject({ traceId: request.traceId, kind: SPAN_KIND.client });
      expect(otlp.spans.filter((span) => span.traceId === callersTrace.traceId)).toEqual([]);
    } finally {
      await otlp.close();
    }
  }, 90_000);
});
