import Joi from 'joi';
import { serviceNames } from '@gateway/contracts';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '@gateway/http-errors';
import { metricsRegistry } from '@gateway/observability';
import { json, type OperationSpec, type Tag } from '../operation';
import type { RouteContext } from './context';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const liveness = Joi.object({ status: Joi.valid('ok').required() }).id('Liveness');
const readiness = Joi.object({
  status: Joi.valid('ready', 'not_ready').required(),
  checks: Joi.object()
    .pattern(Joi.string(), Joi.object({ ok: Joi.boolean().required(), detail: Joi.string() }))
    .required()
    .description('One entry per dependency (postgres, redis, rabbitmq, service:<name>).'),
}).id('Readiness');

/** Every other service of the stack: each needs at least one command consumer for the gateway to be ready. */
const DOWNSTREAM_SERVICES = serviceNames.filter((service) => service !== 'api-gateway');
const CHECK_TIMEOUT_MS = 2000;

interface CheckResult {
  ok: boolean;
  detail?: string;
}

async function check(probe: () => Promise<string | undefined>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    const problem = await Promise.race([probe(), timeout]);
    return problem ? { ok: false, detail: problem } : { ok: true };
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the stores, the broker and every downstream service answer: the readiness report. */
async function readinessOf({ dataSource, redis, broker }: RouteContext) {
  const probes: Record<string, () => Promise<string | undefined>> = {
    postgres: async () => {
      await dataSource.query('SELECT 1');
      return undefined;
    },
    redis: async () => {
      const answer = await redis.ping();
      return answer === 'PONG' ? undefined : `unexpected answer ${answer}`;
    },
    rabbitmq: async () => (broker.connected ? undefined : 'not connected'),
  };
  for (const service of DOWNSTREAM_SERVICES) {
    probes[`service:${service}`] = async () =>
      (await broker.commandConsumers(service)) > 0 ? undefined : 'no consumer';
  }
  const names = Object.keys(probes);
  const results = await Promise.all(names.map((name) => check(probes[name]!)));
  return {
    ready: results.every((result) => result.ok),
    checks: Object.fromEntries(names.map((name, i) => [name, results[i]!])),
  };
}

/** The document's group of this family's operations. */
export const operationsTag: Tag = { name: 'Operations', description: 'Probes and metrics.' };

/** /healthz (process up), /readyz (dependencies and downstream consumers), /metrics (Prometheus): not JSON operations. */
export const healthOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    tag: 'Operations',
    area: 'public',
    summary: 'The process is up',
    answers: [json(200, 'Up.', liveness)],
    serve: (_req, res) => {
      res.json({ status: 'ok' });
    },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'Operations',
    area: 'public',
    summary: 'PostgreSQL, Redis, RabbitMQ and every downstream service answer',
    answers: [json(200, 'Ready.', readiness), json(503, 'Not ready (with `Retry-After`).', readiness)],
    serve: async (_req, res, context) => {
      const { ready, checks } = await readinessOf(context);
      if (!ready) res.set('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'Operations',
    area: 'public',
    summary: 'Prometheus metrics',
    answers: [{ status: 200, description: 'Prometheus text format.', mediaTypes: ['text/plain'] }],
    serve: async (_req, res) => {
      res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
    },
  },
];
