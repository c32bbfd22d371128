import { counter, type Logger } from '@gateway/observability';
import type { EntityManager } from 'typeorm';
import { recordReceivedFunds, type ReceivedFunds } from '../persistence';

const lateFunds = counter(
  'payment_late_funds_total',
  'Funds a rail confirmed after the payment had ended (kept in received_funds for reconciliation)',
  ['rail'],
);

/**
 * Keeps money that arrived for a payment that can no longer take it, and makes it visible to operators. It is `late`
 * unless it matches no payment we know (or the caller says it does not match the payment: `kind: 'unmatched'`).
 * `reason` is the rail's word for why, logged.
 */
export async function recordLateFunds(
  manager: EntityManager,
  logger: Logger,
  funds: Omit<ReceivedFunds, 'kind'> & { kind?: 'late' | 'unmatched' },
  paymentStatus: string | null,
  reason?: string,
): Promise<void> {
  const kind = paymentStatus === null ? 'unmatched' : (funds.kind ?? 'late');
  if (!(await recordReceivedFunds(manager, { ...funds, kind }))) return;
  lateFunds.inc({ rail: funds.rail });
  logger.warn(
    {
      payment_id: funds.paymentId,
      payment_status: paymentStatus,
      kind,
      reason,
      rail: funds.rail,
      rail_reference: funds.railReference,
      amount_centavos: funds.amountCentavos,
      amount_base_units: funds.amountBaseUnits,
    },
    'funds received for a payment that cannot take them: recorded for reconciliation',
  );
}
