import { Joi, brokerUrls, commonEnv, ConfigError, loadConfig, variableNames } from '@gateway/config';
import { DEFINITIONS_FILE } from './deployed-definitions';

/** The settings of the deploy step that applies infra/rabbitmq/definitions.json through the management API. */
export interface ApplyDefinitionsConfig {
  LOG_LEVEL: string;
  /** The management API's base URL, e.g. `http://rabbitmq:15672`. */
  RABBITMQ_MANAGEMENT_URL: string;
  /** A user tagged `administrator` (definitions create vhosts and policies). */
  RABBITMQ_MANAGEMENT_USERNAME: string;
  RABBITMQ_MANAGEMENT_PASSWORD: string;
  RABBITMQ_DEFINITIONS_FILE: string;
  /**
   * The services' own AMQP_URL (the same Secret or variable the services read): its user is let into the vhosts of the
   * file, and its vhost must be one the file declares. With AMQP_URLS (a cluster's nodes), its first address.
   */
  AMQP_URL?: string;
  /** The services' own AMQP_URLS, when they name a cluster's nodes (one user and vhost at each). */
  AMQP_URLS?: string[];
  /** More users (comma-separated) given configure, write and read on every vhost of the file. */
  RABBITMQ_APP_USERS: string[];
  /** How long a broker still starting (connection refused, 5xx) is waited for before the step fails. */
  RABBITMQ_WAIT_SECONDS: number;
  /** The nodes the cluster must run before the queues are declared (each quorum queue gets a member on each). */
  RABBITMQ_CLUSTER_NODES: number;
}

/** The settings of the init container that holds a service until the definitions are on the broker. */
export interface WaitForDefinitionsConfig {
  LOG_LEVEL: string;
  /** The service's own AMQP_URL: its user, its vhost. With AMQP_URLS (a cluster's nodes), its first address. */
  AMQP_URL: string;
  /** The service's own AMQP_URLS, when it names a cluster's nodes: each is tried in turn. */
  AMQP_URLS?: string[];
  RABBITMQ_DEFINITIONS_FILE: string;
  /** How long to wait for the vhost, its exchanges and queues before failing (the kubelet then starts it again). */
  RABBITMQ_WAIT_SECONDS: number;
}

const userList = Joi.custom((value: unknown) =>
  String(value)
    .split(',')
    .map((user) => user.trim())
    .filter(Boolean),
);

const amqpUrl = Joi.string().uri({ scheme: ['amqp', 'amqps'] });

const schema = Joi.object<ApplyDefinitionsConfig>({
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  RABBITMQ_MANAGEMENT_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .replace(/\/+$/, '')
    .required(),
  RABBITMQ_MANAGEMENT_USERNAME: Joi.string().required(),
  RABBITMQ_MANAGEMENT_PASSWORD: Joi.string().required(),
  RABBITMQ_DEFINITIONS_FILE: Joi.string().default(DEFINITIONS_FILE),
  AMQP_URL: amqpUrl.when('AMQP_URLS', { is: Joi.exist(), then: commonEnv.AMQP_URL }),
  AMQP_URLS: commonEnv.AMQP_URLS,
  RABBITMQ_APP_USERS: userList.default([]),
  RABBITMQ_WAIT_SECONDS: Joi.number().integer().min(0).max(3600).default(120),
  RABBITMQ_CLUSTER_NODES: Joi.number().integer().min(1).max(99).default(1),
});

const waitSchema = Joi.object<WaitForDefinitionsConfig>({
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  AMQP_URL: amqpUrl.when('AMQP_URLS', {
    is: Joi.exist(),
    then: commonEnv.AMQP_URL,
    otherwise: Joi.required(),
  }),
  AMQP_URLS: commonEnv.AMQP_URLS,
  RABBITMQ_DEFINITIONS_FILE: Joi.string().default(DEFINITIONS_FILE),
  RABBITMQ_WAIT_SECONDS: Joi.number().integer().min(0).max(3600).default(600),
});

/** The schemas themselves, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as applyDefinitionsConfigSchema, waitSchema as waitForDefinitionsConfigSchema };

/** The variables the apply step reads. */
export const applyDefinitionsVariables = variableNames(schema);

/** The variables the wait step reads. */
export const waitForDefinitionsVariables = variableNames(waitSchema);

export function loadApplyDefinitionsConfig(env: NodeJS.ProcessEnv = process.env): ApplyDefinitionsConfig {
  return oneUserAndVhost(loadConfig(schema, env));
}

export function loadWaitForDefinitionsConfig(env: NodeJS.ProcessEnv = process.env): WaitForDefinitionsConfig {
  return oneUserAndVhost(loadConfig(waitSchema, env));
}

/**
 * A cluster's addresses (AMQP_URLS) as the steps read them: AMQP_URL is the first, and every address must log in as
 * the same user to the same vhost (they are one broker).
 */
function oneUserAndVhost<T extends { AMQP_URL?: string; AMQP_URLS?: string[] }>(config: T): T {
  if (!config.AMQP_URLS) return config;
  const urls = brokerUrls(config);
  const first = urls[0]!;
  if (urls.some((url) => amqpUser(url) !== amqpUser(first) || amqpVhost(url) !== amqpVhost(first)))
    throw new ConfigError(['AMQP_URLS'], '"AMQP_URLS" must name one user and one vhost at every node');
  return { ...config, AMQP_URL: first };
}

/** The user an AMQP URL logs in as (amqplib's default, `guest`, when it names neither user nor password). */
export function amqpUser(url: string): string {
  const { username, password } = new URL(url);
  return username === '' && password === '' ? 'guest' : decodeURIComponent(username);
}

/** The vhost an AMQP URL names (`/` when it names none, as amqplib reads it). */
export function amqpVhost(url: string): string {
  const path = new URL(url).pathname;
  return path === '' || path === '/' ? '/' : decodeURIComponent(path.slice(1));
}

/** The users the apply step lets into the vhosts: the user of AMQP_URL, then RABBITMQ_APP_USERS. */
export function grantedUsers(
  config: Pick<ApplyDefinitionsConfig, 'AMQP_URL' | 'RABBITMQ_APP_USERS'>,
): string[] {
  return [
    ...new Set([...(config.AMQP_URL ? [amqpUser(config.AMQP_URL)] : []), ...config.RABBITMQ_APP_USERS]),
  ];
}
