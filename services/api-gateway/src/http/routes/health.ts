import Joi from 'joi';
import { Router } from 'express';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { serviceNames } from '@gateway/contracts';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS, asyncHandler } from '@gateway/http-errors';
import type { Broker } from '@gateway/messaging';
import { metricsRegistry } from '@gateway/observability';
import { json, type OperationSpec } from '../operation';

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

/** /healthz (process up), /readyz (dependencies and downstream consumers), /metrics (Prometheus). */
/** The probes and the metrics (served below, not JSON entries of their own), described for the document. */
export const healthOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    tag: 'Operations',
    area: 'public',
    summary: 'The process is up',
    answers: [json(200, 'Up.', liveness)],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'Operations',
    area: 'public',
    summary: 'PostgreSQL, Redis, RabbitMQ and every downstream service answer',
    answers: [json(200, 'Ready.', readiness), json(503, 'Not ready (with `Retry-After`).', readiness)],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'Operations',
    area: 'public',
    summary: 'Prometheus metrics',
    answers: [{ status: 200, description: 'Prometheus text format.', mediaTypes: ['text/plain'] }],
  },
];

export function healthRoutes(deps: { dataSource: DataSource; redis: Redis; broker: Broker }): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get(
    '/readyz',
    asyncHandler(async (_req, res) => {
      const probes: Record<string, () => Promise<string | undefined>> = {
        postgres: async () => {
          await deps.dataSource.query('SELECT 1');
          return undefined;
        },
        redis: async () => {
          const answer = await deps.redis.ping();
          return answer === 'PONG' ? undefined : `unexpected answer ${answer}`;
        },
        rabbitmq: async () => (deps.broker.connected ? undefined : 'not connected'),
      };
      for (const service of DOWNSTREAM_SERVICES) {
        probes[`service:${service}`] = async () =>
          (await deps.broker.commandConsumers(service)) > 0 ? undefined : 'no consumer';
      }
      const names = Object.keys(probes);
      const results = await Promise.all(names.map((name) => check(probes[name]!)));
      const checks = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
      const ready = results.every((result) => result.ok);
      if (!ready) res.set('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
    }),
  );

  router.get(
    '/metrics',
    asyncHandler(async (_req, res) => {
      res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
    }),
  );

  return router;
}
