import {
  Joi,
  metricsEnv,
  serviceEnv,
  type MetricsEnv,
  type ServiceEnv,
  loadConfig,
  variableNames,
} from '@gateway/config';

export type CustomerConfig = ServiceEnv & MetricsEnv;

const schema = Joi.object<CustomerConfig>({
  ...serviceEnv,
  ...metricsEnv,
});

/** The variables this service reads (the launcher hands it these and no others). */
export const customerVariables = variableNames(schema);

export function loadCustomerConfig(env: NodeJS.ProcessEnv = process.env): CustomerConfig {
  return loadConfig(schema, env);
}
