import { ConfigError } from '@gateway/config';
import { loadLedgerConfig, loadLedgerMigrationConfig } from '../src/config';

describe('ledger config', () => {
  test('settlement delays: 0 in the sandbox, a day in production, or what is set', () => {
    const sandbox = loadLedgerConfig({ APP_ENV: 'sandbox' });
    expect(sandbox.SETTLEMENT_DELAY_PIX).toBe(0);
    expect(sandbox.SETTLEMENT_DELAY_CRYPTO).toBe(0);

    const production = loadLedgerConfig({
      APP_ENV: 'production',
      DATABASE_URL: 'postgres://ledger@db:5432/gateway',
      AMQP_URL: 'amqp://ledger:secret@rabbitmq:5672/gateway',
    });
    expect(production.SETTLEMENT_DELAY_PIX).toBe(86_400);
    expect(production.SETTLEMENT_DELAY_CRYPTO).toBe(86_400);

    const set = loadLedgerConfig({ APP_ENV: 'sandbox', SETTLEMENT_DELAY_PIX: '2' });
    expect(set.SETTLEMENT_DELAY_PIX).toBe(2);
    expect(() => loadLedgerConfig({ APP_ENV: 'sandbox', SETTLEMENT_DELAY_CRYPTO: '-1' })).toThrow(
      /SETTLEMENT_DELAY_CRYPTO/,
    );
  });

  test('the consumer prefetch is 64 unless set (batches of payment postings are as large as it lets them be)', () => {
    expect(loadLedgerConfig({ APP_ENV: 'sandbox' }).BROKER_PREFETCH).toBe(64);
    expect(loadLedgerConfig({ APP_ENV: 'sandbox', BROKER_PREFETCH: '16' }).BROKER_PREFETCH).toBe(16);
    expect(() => loadLedgerConfig({ APP_ENV: 'sandbox', BROKER_PREFETCH: '0' })).toThrow(/BROKER_PREFETCH/);
  });

  test('the owner that migrates: optional to serve, required to migrate in production, never a default', () => {
    const production = {
      APP_ENV: 'production',
      DATABASE_URL: 'postgres://ledger_runtime:pw@db:5432/gateway',
      AMQP_URL: 'amqp://ledger:secret@rabbitmq:5672/gateway',
    };
    expect(loadLedgerConfig(production).MIGRATION_DATABASE_URL).toBeUndefined();
    expect(loadLedgerConfig({ APP_ENV: 'sandbox' }).MIGRATION_DATABASE_URL).toBeUndefined();
    const refused = (() => {
      try {
        loadLedgerMigrationConfig(production);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).variables).toEqual(['MIGRATION_DATABASE_URL']);
    const owner = 'postgres://ledger_owner:pw@db:5432/gateway';
    expect(
      loadLedgerMigrationConfig({ ...production, MIGRATION_DATABASE_URL: owner }).MIGRATION_DATABASE_URL,
    ).toBe(owner);
    expect(loadLedgerMigrationConfig({ APP_ENV: 'sandbox' }).MIGRATION_DATABASE_URL).toBeUndefined();
    expect(() => loadLedgerConfig({ APP_ENV: 'sandbox', MIGRATION_DATABASE_URL: 'mysql://x' })).toThrow(
      /MIGRATION_DATABASE_URL/,
    );
  });
});
