/**
 * Writes infra/rabbitmq/definitions.json from the topology the services declare (see rabbitmq-definitions.ts):
 *
 *   pnpm --filter @gateway/deploy write-rabbitmq-definitions
 *
 * The deployment's vhost and AMQP_PREFIX are those of infra/k8s and docker-compose.yml; the tests fail when the file,
 * the topology and those settings disagree.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rabbitmqDefinitions } from './rabbitmq-definitions';

/** The vhost the deployments' AMQP_URL names and their AMQP_PREFIX (none: the vhost is the stack's own). */
export const DEPLOYED_TOPOLOGY = { vhost: 'gateway', prefix: '' };

export const DEFINITIONS_FILE = join(__dirname, '../../rabbitmq/definitions.json');

if (require.main === module) {
  writeFileSync(DEFINITIONS_FILE, `${JSON.stringify(rabbitmqDefinitions(DEPLOYED_TOPOLOGY), null, 2)}\n`);
  process.stdout.write(`wrote ${DEFINITIONS_FILE}\n`);
}
