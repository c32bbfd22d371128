import type {
  CryptoRequestClosed,
  CryptoRequestSettled,
  PixChargeClosed,
  PixChargePaid,
} from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { isOpen } from '../domain/payment-status';
import { decideClosure, decidePixSettlement } from '../domain/settlement';
import {
  hasReceivedFunds,
  isTransferRecorded,
  lockPayment,
  recordReceivedFunds,
  transitionPayment,
  type PaymentEntity,
} from '../persistence';
import { recordLateFunds } from './late-funds';

// What a rail's outcome does to its payment, whoever learnt it: the rail's event, or the reconciliation asking the
// rail. Each is decided under the payment's row lock and counts once (a PIX per endToEndId, a transfer per
// signature, a closure by the payment's open -> final transition), so learning it twice changes nothing.

/** A PIX the charge of a payment received, as pix.charge.paid.v1 reports it or pix.charge.closed.v1 lists it. */
export interface ReceivedPix {
  paymentId: string;
  endToEndId: string;
  amountCentavos: number;
}

/**
 * What one PIX does to its payment, under the payment's row lock (`payment` as locked, null if unknown): the full
 * amount pays it; less is recorded as partial; after the end, late funds. Each endToEndId counts once per payment
 * (the received_funds key), so the same PIX learnt twice changes nothing the second time.
 */
async function applyReceivedPix(
  tx: Transaction,
  payment: PaymentEntity | null,
  pix: ReceivedPix,
  logger: Logger,
): Promise<void> {
  // Already counted: it paid the payment, or is on record (a partial the closure reports again must not pay an
  // amount changed since).
  if (payment?.transactionId === pix.endToEndId) return;
  if (await isTransferRecorded(tx.manager, pix.paymentId, pix.endToEndId)) return;
  const funds = {
    paymentId: pix.paymentId,
    rail: 'pix' as const,
    railReference: pix.endToEndId,
    amountCentavos: pix.amountCentavos,
    amountBaseUnits: null,
  };
  const decision = decidePixSettlement({
    paymentIsOpen: payment !== null && isOpen(payment.status),
    expectedCentavos: payment?.amountCentavos ?? 0,
    receivedCentavos: pix.amountCentavos,
  });
  if (!payment || decision.kind === 'late') {
    await recordLateFunds(tx.manager, logger, funds, payment?.status ?? null);
    return;
  }
  if (decision.kind === 'partial') {
    if (await recordReceivedFunds(tx.manager, { ...funds, kind: 'partial' }))
      logger.warn(
        { payment_id: payment.id, expected: payment.amountCentavos, received: pix.amountCentavos },
        'partial PIX received: payment stays open',
      );
    return;
  }
  const paid = await transitionPayment(tx, payment.id, { status: 'paid', transactionId: pix.endToEndId });
  if (paid) Object.assign(payment, paid);
  if (decision.excessCentavos > 0) {
    await recordReceivedFunds(tx.manager, {
      ...funds,
      kind: 'excess',
      amountCentavos: decision.excessCentavos,
    });
  }
}

/** A PIX arrived for the payment's charge (see applyReceivedPix). */
export async function applyPixChargePaid(
  tx: Transaction,
  paid: Pick<PixChargePaid, 'payment_id' | 'end_to_end_id' | 'amount_centavos'>,
  logger: Logger,
): Promise<void> {
  const payment = await lockPayment(tx.manager, paid.payment_id);
  await applyReceivedPix(
    tx,
    payment,
    { paymentId: paid.payment_id, endToEndId: paid.end_to_end_id, amountCentavos: paid.amount_centavos },
    logger,
  );
}

/**
 * The PIX charge ended unpaid: expired (failed UNDERPAID if a partial PIX came in) or removed by the PSP. Decided
 * after recording the PIX the closure lists: their own pix.charge.paid.v1 may be handled before or after this,
 * concurrently, and the outcome is the same.
 */
export async function applyPixChargeClosed(
  tx: Transaction,
  closed: Pick<PixChargeClosed, 'payment_id' | 'reason' | 'detail' | 'received_pix'>,
  logger: Logger,
): Promise<void> {
  const payment = await lockPayment(tx.manager, closed.payment_id);
  for (const pix of closed.received_pix) {
    await applyReceivedPix(
      tx,
      payment,
      { paymentId: closed.payment_id, endToEndId: pix.end_to_end_id, amountCentavos: pix.amount_centavos },
      logger,
    );
  }
  if (!payment || !isOpen(payment.status)) {
    logger.info({ payment_id: closed.payment_id }, 'charge closed for an ended payment');
    return;
  }
  const partial = await hasReceivedFunds(tx.manager, payment.id, 'partial');
  await transitionPayment(tx, payment.id, decideClosure(closed.reason, partial, closed.detail));
}

/** The watcher saw the full amount on chain: paid with the signature; any excess, or a late transfer, is recorded. */
export async function applyCryptoRequestSettled(
  tx: Transaction,
  settled: Pick<
    CryptoRequestSettled,
    'payment_id' | 'signature' | 'received_base_units' | 'excess_base_units'
  >,
  logger: Logger,
): Promise<void> {
  const payment = await lockPayment(tx.manager, settled.payment_id);
  if (payment?.transactionId === settled.signature) return;
  const funds = {
    paymentId: settled.payment_id,
    rail: 'crypto' as const,
    railReference: settled.signature,
    amountCentavos: null,
  };
  if (!payment || !isOpen(payment.status)) {
    await recordLateFunds(
      tx.manager,
      logger,
      { ...funds, amountBaseUnits: settled.received_base_units },
      payment?.status ?? null,
    );
    return;
  }
  await transitionPayment(tx, payment.id, { status: 'paid', transactionId: settled.signature });
  if (BigInt(settled.excess_base_units) > 0n) {
    await recordReceivedFunds(tx.manager, {
      ...funds,
      kind: 'excess',
      amountBaseUnits: settled.excess_base_units,
    });
  }
}

/**
 * The crypto window ended: expired with nothing, failed UNDERPAID with a partial transfer (to this request, or to
 * one an amount change replaced), or failed.
 */
export async function applyCryptoRequestClosed(
  tx: Transaction,
  closed: Pick<CryptoRequestClosed, 'payment_id' | 'reference' | 'reason' | 'received_base_units'>,
  logger: Logger,
): Promise<void> {
  const payment = await lockPayment(tx.manager, closed.payment_id);
  if (BigInt(closed.received_base_units) > 0n) {
    await recordReceivedFunds(tx.manager, {
      paymentId: closed.payment_id,
      kind: 'partial',
      rail: 'crypto',
      railReference: closed.reference,
      amountCentavos: null,
      amountBaseUnits: closed.received_base_units,
    });
  }
  if (!payment || !isOpen(payment.status)) {
    logger.info({ payment_id: closed.payment_id }, 'request closed for an ended payment');
    return;
  }
  const partial = await hasReceivedFunds(tx.manager, payment.id, 'partial');
  await transitionPayment(tx, payment.id, decideClosure(closed.reason, partial, null));
}
