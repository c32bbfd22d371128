import { Joi, loadConfig, serviceSchema, variableNames, type ServiceConfig } from '@gateway/config';

export interface CheckoutConfig extends ServiceConfig {
  /** How long a session start waits for the payment service to create the payment. */
  PAYMENT_RPC_TIMEOUT_MS: number;
}

const schema = serviceSchema<CheckoutConfig>({
  PAYMENT_RPC_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(4000),
});

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as checkoutConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const checkoutVariables = variableNames(schema);

export function loadCheckoutConfig(env: NodeJS.ProcessEnv = process.env): CheckoutConfig {
  return loadConfig(schema, env);
}
