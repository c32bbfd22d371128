import { Joi, commonEnv, loadConfig, variableNames } from '@gateway/config';
import { DEFINITIONS_FILE } from './write-rabbitmq-definitions';

/** The settings of the deploy step that applies infra/rabbitmq/definitions.json through the management API. */
export interface ApplyDefinitionsConfig {
  LOG_LEVEL: string;
  /** The management API's base URL, e.g. `http://rabbitmq:15672`. */
  RABBITMQ_MANAGEMENT_URL: string;
  /** A user tagged `administrator` (definitions create vhosts and policies). */
  RABBITMQ_MANAGEMENT_USERNAME: string;
  RABBITMQ_MANAGEMENT_PASSWORD: string;
  RABBITMQ_DEFINITIONS_FILE: string;
  /** Users (comma-separated) given configure, write and read on every vhost of the file: the services' AMQP user. */
  RABBITMQ_APP_USERS: string[];
  /** How long a broker still starting (connection refused, 5xx) is waited for before the step fails. */
  RABBITMQ_WAIT_SECONDS: number;
}

const userList = Joi.custom((value: unknown) =>
  String(value)
    .split(',')
    .map((user) => user.trim())
    .filter(Boolean),
);

const schema = Joi.object<ApplyDefinitionsConfig>({
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  RABBITMQ_MANAGEMENT_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .replace(/\/+$/, '')
    .required(),
  RABBITMQ_MANAGEMENT_USERNAME: Joi.string().required(),
  RABBITMQ_MANAGEMENT_PASSWORD: Joi.string().required(),
  RABBITMQ_DEFINITIONS_FILE: Joi.string().default(DEFINITIONS_FILE),
  RABBITMQ_APP_USERS: userList.default([]),
  RABBITMQ_WAIT_SECONDS: Joi.number().integer().min(0).max(3600).default(120),
});

/** The variables the apply step reads. */
export const applyDefinitionsVariables = variableNames(schema);

export function loadApplyDefinitionsConfig(env: NodeJS.ProcessEnv = process.env): ApplyDefinitionsConfig {
  return loadConfig(schema, env);
}
