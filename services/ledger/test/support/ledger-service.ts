import type { PaymentEventPayload, PixPayoutSettled, RefundEventPayload } from '@gateway/contracts';
import { paymentConfirmed, pixPayoutSettled, refundFailed, refundSucceeded } from '@gateway/contracts';
import {
  publishAndAwaitHandling,
  serviceTestBed,
  startedForTheseTests,
  type IsolatedEnvironment,
  type ServiceTestBed,
} from '@gateway/testkit';
import { DataSource } from 'typeorm';
import type { LedgerConfig } from '../../src/config';
import { startLedgerService, type LedgerService } from '../../src/main';

export interface LedgerTestBed extends ServiceTestBed<LedgerService> {
  ledgerConfig: LedgerConfig;
  /** Publishes a `payment.confirmed.v1` as the payment service does and resolves once the ledger handled it. */
  confirm(event: PaymentEventPayload, messageId?: string): Promise<unknown>;
  /** The same for `refund.succeeded.v1`. */
  refundSucceeded(event: RefundEventPayload, messageId?: string): Promise<unknown>;
  /** The same for `pix.payout.settled.v1`, as the PIX adapter reports a payout's outcome. */
  payoutSettled(event: PixPayoutSettled, messageId?: string): Promise<unknown>;
  /** The same for `refund.failed.v1`. */
  refundFailed(event: RefundEventPayload, messageId?: string): Promise<unknown>;
  /**
   * Runs SQL on the ledger's schema as the owner of its tables (the test database's administrator, which migrated it):
   * the service itself serves as `ledger_runtime`, which may change far less.
   */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

/**
 * The ledger service started in-process on its own database and broker prefix, with a client broker, before the
 * enclosing describe's tests and closed after them. `settings` overrides its own variables (settlement delays and
 * sweep interval, the reconciliation's rail timeout; no delay and a 100 ms sweep unless told, reconciliation on demand
 * only). `beforeStart` runs on the bed's environment before the ledger first starts there.
 */
export function ledgerServiceForTheseTests(
  label: string,
  settings: Partial<
    Pick<
      LedgerConfig,
      | 'SETTLEMENT_DELAY_PIX'
      | 'SETTLEMENT_DELAY_CRYPTO'
      | 'SETTLEMENT_SWEEP_INTERVAL_MS'
      | 'RECONCILIATION_RAIL_TIMEOUT_MS'
      | 'RESERVATION_CONFIRM_AFTER_SECONDS'
      | 'RESERVATION_SWEEP_INTERVAL_MS'
    >
  > = {},
  beforeStart: (env: IsolatedEnvironment) => Promise<void> = async () => undefined,
): LedgerTestBed {
  return startedForTheseTests(async () => {
    let ledgerConfig: LedgerConfig | undefined;
    let owner: DataSource | undefined;
    const bed = await serviceTestBed(label, async (env, cleanup) => {
      await beforeStart(env);
      ledgerConfig = {
        ...env.config,
        SETTLEMENT_DELAY_PIX: 0,
        SETTLEMENT_DELAY_CRYPTO: 0,
        SETTLEMENT_SWEEP_INTERVAL_MS: 100,
        // Reconciliation on demand only (a test runs it when it wants to).
        RECONCILIATION_INTERVAL_SECONDS: 0,
        RECONCILIATION_PERIOD_SECONDS: 86_400,
        RECONCILIATION_GRACE_SECONDS: 0,
        RECONCILIATION_RAIL_TIMEOUT_MS: 1000,
        RECONCILIATION_METRICS_REFRESH_MS: 30_000,
        RECONCILIATION_PSP_OPENING_BALANCE_CENTAVOS: 0,
        RESERVATION_CONFIRM_AFTER_SECONDS: 600,
        RESERVATION_SWEEP_INTERVAL_MS: 3_600_000,
        ...settings,
      };
      const service = await startLedgerService(ledgerConfig);
      owner = await new DataSource({
        type: 'postgres',
        url: env.config.DATABASE_URL,
        extra: { max: 2, options: '-c search_path=ledger' },
      }).initialize();
      cleanup.afterStop(() => owner!.destroy());
      return service;
    });
    return Object.assign(bed, {
      ledgerConfig: ledgerConfig!,
      confirm: (event: PaymentEventPayload, messageId?: string) =>
        publishAndAwaitHandling(bed.env.config, paymentConfirmed, event, { messageId }),
      refundSucceeded: (event: RefundEventPayload, messageId?: string) =>
        publishAndAwaitHandling(bed.env.config, refundSucceeded, event, { messageId }),
      payoutSettled: (event: PixPayoutSettled, messageId?: string) =>
        publishAndAwaitHandling(bed.env.config, pixPayoutSettled, event, { messageId }),
      refundFailed: (event: RefundEventPayload, messageId?: string) =>
        publishAndAwaitHandling(bed.env.config, refundFailed, event, { messageId }),
      sql: <T>(text: string, params: unknown[] = []) => owner!.query(text, params) as Promise<T[]>,
    });
  });
}
