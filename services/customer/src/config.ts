import { loadConfig, serviceSchema, variableNames, type ServiceConfig } from '@gateway/config';

export type CustomerConfig = ServiceConfig;

const schema = serviceSchema<CustomerConfig>({});

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as customerConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const customerVariables = variableNames(schema);

export function loadCustomerConfig(env: NodeJS.ProcessEnv = process.env): CustomerConfig {
  return loadConfig(schema, env);
}
