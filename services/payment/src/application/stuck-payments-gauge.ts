import type { DataSource } from 'typeorm';
import { paymentMethods } from '@gateway/contracts';
import { PeriodicTask } from '@gateway/messaging';
import { gauge, type Logger } from '@gateway/observability';
import { countStuckPayments } from '../persistence';

const stuckPayments = gauge(
  'payment_stuck_payments',
  'Payments still pending/processing after their payment window ended (their rail should have closed them), by method',
  ['method'],
);
const oldestStuck = gauge(
  'payment_stuck_payment_oldest_seconds',
  'How long past the end of its payment window the oldest payment still pending/processing is (0: none), by method',
  ['method'],
);

/**
 * Refreshes the stuck-payments gauges: an open payment past its window's end means its rail's closure never reached
 * us and reconciliation has not put it right yet. Every replica reports the same numbers (alert on their max).
 */
export function stuckPaymentsGauge(
  dataSource: DataSource,
  options: { intervalMs: number; logger: Logger },
): PeriodicTask {
  return new PeriodicTask(
    async () => {
      const rows = await countStuckPayments(dataSource.manager);
      for (const method of paymentMethods) {
        const row = rows.find((found) => found.method === method);
        stuckPayments.set({ method }, Number(row?.stuck ?? 0));
        oldestStuck.set({ method }, row?.oldest_seconds ?? 0);
      }
    },
    { name: 'stuck-payments-gauge', ...options },
  );
}
