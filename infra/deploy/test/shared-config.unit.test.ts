import { Joi, metricsEnv, serviceEnv, variableNames } from '@gateway/config';
import { refusedVariables } from '@gateway/testkit';
import { messageServices, stackServices } from './support/deployment';

const sharedVariables = variableNames(Joi.object(serviceEnv));
const metricsVariables = variableNames(Joi.object(metricsEnv));

describe('the config block every service shares (@gateway/config serviceEnv)', () => {
  test('every service reads it, and every service but the gateway (its /metrics is on its API port) the metrics listener', () => {
    for (const { name, variables } of messageServices) {
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
        // The dashboard reads no broker setting.
        refused:
          name === 'dashboard'
            ? ['DATABASE_POOL_SIZE', 'LOG_LEVEL']
            : ['BROKER_PREFETCH', 'DATABASE_POOL_SIZE', 'LOG_LEVEL'],
      });
  });

  test('the dashboard, which owns no queue, reads all of it but the broker settings, and no metrics listener', () => {
    const dashboard = stackServices.find(({ name }) => name === 'dashboard')!;
    const broker = sharedVariables.filter((v) => v.startsWith('AMQP_') || v.startsWith('BROKER_'));
    expect(broker.length).toBeGreaterThan(0);
    expect(sharedVariables.filter((v) => !broker.includes(v) && !dashboard.variables.includes(v))).toEqual(
      [],
    );
    expect(dashboard.variables.filter((v) => broker.includes(v) || metricsVariables.includes(v))).toEqual([]);
  });
});
