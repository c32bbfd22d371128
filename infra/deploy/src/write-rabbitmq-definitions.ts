/**
 * Writes infra/rabbitmq/definitions.json from the topology the services declare (see rabbitmq-definitions.ts):
 *
 *   pnpm --filter @gateway/deploy write-rabbitmq-definitions
 *
 * The deployment's vhost and AMQP_PREFIX are those of infra/k8s and docker-compose.yml; the tests fail when the file,
 * the topology and those settings disagree.
 */
import { writeFileSync } from 'node:fs';
import { DEFINITIONS_FILE, DEPLOYED_TOPOLOGY } from './deployed-definitions';
import { rabbitmqDefinitions } from './rabbitmq-definitions';

if (require.main === module) {
  writeFileSync(DEFINITIONS_FILE, `${JSON.stringify(rabbitmqDefinitions(DEPLOYED_TOPOLOGY), null, 2)}\n`);
  process.stdout.write(`wrote ${DEFINITIONS_FILE}\n`);
}
