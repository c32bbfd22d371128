/**
 * The deploy step that applies infra/rabbitmq/definitions.json (vhost, policies, exchanges, quorum queues with their
 * delivery limit and dead-lettering, bindings) through the RabbitMQ management API, then lets the services' AMQP user
 * (the user of AMQP_URL, read from the services' own Secret or variable, and any of RABBITMQ_APP_USERS) use its
 * vhosts. Idempotent: run it at every deploy (the Kubernetes Job, the compose one-shot service). It waits for a broker
 * that is still starting, and fails at once on an answer that waiting cannot change (bad credentials, a definitions
 * file the broker refuses, an AMQP_URL naming a vhost the file does not declare).
 */
import { readFileSync } from 'node:fs';
import { loadOrExit } from '@gateway/config';
import { createLogger, type Logger } from '@gateway/observability';
import { amqpVhost, grantedUsers, loadApplyDefinitionsConfig, type ApplyDefinitionsConfig } from './config';
import { endOnStopSignal } from './stop-signals';

const RETRY_DELAY_MS = 2000;

class RefusedError extends Error {}

export async function applyRabbitmqDefinitions(
  config: ApplyDefinitionsConfig,
  logger: Logger,
): Promise<void> {
  const definitions = JSON.parse(readFileSync(config.RABBITMQ_DEFINITIONS_FILE, 'utf8')) as {
    vhosts?: Array<{ name: string }>;
  };
  const vhosts = (definitions.vhosts ?? []).map((vhost) => vhost.name);
  if (config.AMQP_URL && !vhosts.includes(amqpVhost(config.AMQP_URL)))
    throw new RefusedError(
      `AMQP_URL names the vhost ${JSON.stringify(amqpVhost(config.AMQP_URL))}, which ` +
        `${config.RABBITMQ_DEFINITIONS_FILE} does not declare (it declares ${JSON.stringify(vhosts)})`,
    );
  const users = grantedUsers(config);
  const deadline = Date.now() + config.RABBITMQ_WAIT_SECONDS * 1000;
  const authorization = `Basic ${Buffer.from(
    `${config.RABBITMQ_MANAGEMENT_USERNAME}:${config.RABBITMQ_MANAGEMENT_PASSWORD}`,
  ).toString('base64')}`;

  async function send(method: 'POST' | 'PUT', path: string, body: unknown): Promise<void> {
    for (;;) {
      let problem: string;
      try {
        const response = await fetch(`${config.RABBITMQ_MANAGEMENT_URL}${path}`, {
          method,
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        if (response.ok) return;
        const text = (await response.text()).slice(0, 500);
        if (response.status < 500) throw new RefusedError(`${method} ${path}: ${response.status} ${text}`);
        problem = `${response.status} ${text}`;
      } catch (err) {
        if (err instanceof RefusedError) throw err;
        problem = err instanceof Error ? err.message : String(err);
      }
      if (Date.now() + RETRY_DELAY_MS > deadline)
        throw new Error(
          `${method} ${path}: no success within ${config.RABBITMQ_WAIT_SECONDS} s (${problem})`,
        );
      logger.info({ path, problem }, 'management API not ready, trying again');
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }

  /** Waits until the cluster runs `RABBITMQ_CLUSTER_NODES` nodes: a quorum queue gets its members when declared. */
  async function awaitNodes(): Promise<void> {
    for (;;) {
      let problem: string;
      try {
        const response = await fetch(`${config.RABBITMQ_MANAGEMENT_URL}/api/nodes`, {
          headers: { authorization },
          signal: AbortSignal.timeout(10_000),
        });
        if (response.status >= 400 && response.status < 500)
          throw new RefusedError(
            `GET /api/nodes: ${response.status} ${(await response.text()).slice(0, 500)}`,
          );
        const nodes = response.ok ? ((await response.json()) as Array<{ running?: boolean }>) : [];
        const running = nodes.filter((node) => node.running === true).length;
        if (running >= config.RABBITMQ_CLUSTER_NODES) return;
        problem = response.ok
          ? `${running} of ${config.RABBITMQ_CLUSTER_NODES} nodes running`
          : `${response.status}`;
      } catch (err) {
        if (err instanceof RefusedError) throw err;
        problem = err instanceof Error ? err.message : String(err);
      }
      if (Date.now() + RETRY_DELAY_MS > deadline)
        throw new Error(`GET /api/nodes: no cluster within ${config.RABBITMQ_WAIT_SECONDS} s (${problem})`);
      logger.info({ problem }, 'cluster not formed yet, waiting');
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }

  if (config.RABBITMQ_CLUSTER_NODES > 1) await awaitNodes();
  await send('POST', '/api/definitions', definitions);
  logger.info({ file: config.RABBITMQ_DEFINITIONS_FILE, vhosts }, 'definitions applied');
  for (const vhost of vhosts)
    for (const user of users) {
      await send('PUT', `/api/permissions/${encodeURIComponent(vhost)}/${encodeURIComponent(user)}`, {
        configure: '.*',
        write: '.*',
        read: '.*',
      });
      logger.info({ vhost, user }, 'permissions granted');
    }
}

if (require.main === module) {
  endOnStopSignal();
  const config = loadOrExit(loadApplyDefinitionsConfig);
  const logger = createLogger('rabbitmq-definitions', config.LOG_LEVEL);
  applyRabbitmqDefinitions(config, logger).then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err: err instanceof Error ? err.message : String(err) }, 'definitions not applied');
      process.exit(1);
    },
  );
}
