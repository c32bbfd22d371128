import { join } from 'node:path';

/** The vhost the deployments' AMQP_URL names and their AMQP_PREFIX (none: the vhost is the stack's own). */
export const DEPLOYED_TOPOLOGY = { vhost: 'gateway', prefix: '' };

/** infra/rabbitmq/definitions.json, from `src/` as from the compiled `dist/` (both one folder under the package). */
export const DEFINITIONS_FILE = join(__dirname, '../../rabbitmq/definitions.json');
