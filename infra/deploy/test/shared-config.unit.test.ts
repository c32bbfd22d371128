import { Joi, metricsEnv, serviceEnv, variableNames } from '@gateway/config';
import { refusedVariables } from '@gateway/testkit';
import { stackServices } from './support/deployment';

const sharedVariables = variableNames(Joi.object(serviceEnv));
const metricsVariables = variableNames(Joi.object(metricsEnv));

describe('the config block every service shares (@gateway/config serviceEnv)', () => {
  test('every service reads it, and every service but the gateway (its /metrics is on its API port) the metrics listener', () => {
    for (const { name, variables } of stackServices) {
      expect({ name, missing: sharedVariables.filter((v) => !variables.includes(v)) }).toEqual({
        name,
        missing: [],
      });
      expect({ name, metrics: metricsVariables.filter((v) => variables.includes(v)) }).toEqual({
        name,
        metrics: name === 'api-gateway' ? [] : metricsVariables,
      });
    }
  });

  test('every service holds it to the same rules: the same bad values are refused everywhere', () => {
    const bad = { APP_ENV: 'sandbox', LOG_LEVEL: 'loud', BROKER_PREFETCH: '0', DATABASE_POOL_SIZE: '0' };
    for (const { name, load } of stackServices)
      expect({ name, refused: refusedVariables(() => load(bad)) }).toEqual({
        name,
        refused: ['BROKER_PREFETCH', 'DATABASE_POOL_SIZE', 'LOG_LEVEL'],
      });
  });
});
