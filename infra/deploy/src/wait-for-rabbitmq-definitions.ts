/**
 * Holds a service until the RabbitMQ definitions are on the broker: run as an init container of every Deployment in
 * infra/k8s, since `kubectl apply -k` starts the rabbitmq-definitions Job and the Deployments together and nothing
 * else orders them. It logs in with the service's own AMQP_URL (so its user must already be let into the vhost, which
 * the Job does) and checks, passively, every exchange and queue infra/rabbitmq/definitions.json declares in that vhost:
 * the file in the image, so a release adding a queue waits for the Job of that release. Exits 0 once all are there; 1
 * when they are not within RABBITMQ_WAIT_SECONDS (the kubelet starts it again); 78 on bad settings.
 */
import { readFileSync } from 'node:fs';
import amqp from 'amqplib';
import { loadOrExit } from '@gateway/config';
import { createLogger, type Logger } from '@gateway/observability';
import { amqpVhost, loadWaitForDefinitionsConfig, type WaitForDefinitionsConfig } from './config';
import type { RabbitmqDefinitions } from './rabbitmq-definitions';
import { endOnStopSignal } from './stop-signals';

const RETRY_DELAY_MS = 2000;

/** What is missing on the broker (a refused login, a vhost, an exchange, a queue), or undefined when nothing is. */
async function missing(url: string, exchanges: string[], queues: string[]): Promise<string | undefined> {
  let model: amqp.ChannelModel | undefined;
  try {
    model = await amqp.connect(url, { timeout: 10_000 });
    model.on('error', () => undefined);
    const channel = await model.createChannel();
    // A passive check of a missing name closes the channel with 404: the rejected call says so.
    channel.on('error', () => undefined);
    for (const exchange of exchanges) await channel.checkExchange(exchange);
    for (const queue of queues) await channel.checkQueue(queue);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await model?.close().catch(() => undefined);
  }
}

export async function waitForRabbitmqDefinitions(
  config: WaitForDefinitionsConfig,
  logger: Logger,
): Promise<void> {
  const definitions = JSON.parse(
    readFileSync(config.RABBITMQ_DEFINITIONS_FILE, 'utf8'),
  ) as RabbitmqDefinitions;
  const vhost = amqpVhost(config.AMQP_URL);
  if (!definitions.vhosts.some((declared) => declared.name === vhost))
    throw new Error(
      `AMQP_URL names the vhost ${JSON.stringify(vhost)}, which ${config.RABBITMQ_DEFINITIONS_FILE} does not declare`,
    );
  const exchanges = definitions.exchanges.filter((e) => e.vhost === vhost).map((e) => e.name);
  const queues = definitions.queues.filter((q) => q.vhost === vhost).map((q) => q.name);
  const deadline = Date.now() + config.RABBITMQ_WAIT_SECONDS * 1000;
  // A cluster's nodes in turn: one that is down or still starting does not hold the service.
  const urls = config.AMQP_URLS ?? [config.AMQP_URL];
  for (let attempt = 0; ; attempt += 1) {
    const problem = await missing(urls[attempt % urls.length]!, exchanges, queues);
    if (problem === undefined) {
      logger.info(
        { vhost, exchanges: exchanges.length, queues: queues.length },
        'RabbitMQ definitions in place',
      );
      return;
    }
    if (Date.now() + RETRY_DELAY_MS > deadline)
      throw new Error(
        `the RabbitMQ definitions of vhost ${JSON.stringify(vhost)} are not in place within ` +
          `${config.RABBITMQ_WAIT_SECONDS} s (${problem}): has the rabbitmq-definitions Job run?`,
      );
    logger.info({ vhost, problem }, 'RabbitMQ definitions not in place yet, waiting');
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
  }
}

if (require.main === module) {
  endOnStopSignal();
  const config = loadOrExit(loadWaitForDefinitionsConfig);
  const logger = createLogger('wait-for-rabbitmq-definitions', config.LOG_LEVEL);
  waitForRabbitmqDefinitions(config, logger).then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err: err instanceof Error ? err.message : String(err) }, 'definitions not in place');
      process.exit(1);
    },
  );
}
