import {
  disputeClosed,
  disputeCreated,
  newPublicId,
  type DisputeRecord,
  type PixMedReported,
} from '@gateway/contracts';
import type { MessageContext, Transaction, UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { decideMed, disputableCentavos, toDisputeRecord } from '../domain/dispute';
import { closeDispute, insertOpenDispute, lockDisputeOf, lockPayment } from '../persistence';

const disputes = counter(
  'payment_disputes_total',
  'Disputes (MED) by outcome: opened, won, lost, and refused (a MED for no paid PIX payment, or past what it can claim)',
  ['outcome'],
);

/** `<endToEndId>/<devolução id>`: a devolução id is unique within its Pix only. */
function medKey(med: PixMedReported): string {
  return `${med.end_to_end_id}/${med.devolucao_id}`;
}

async function emitDispute(tx: Transaction, record: DisputeRecord): Promise<void> {
  const eventId = newPublicId('evt');
  await tx.emit(
    record.status === 'open' ? disputeCreated : disputeClosed,
    { event_id: eventId, business_id: record.business_id, occurred_at: record.updated_at, dispute: record },
    { messageId: eventId },
  );
}

/**
 * Turns the PIX adapter's report of a MED devolução into a dispute (docs/adr/0033-med-disputes.md), under the
 * payment's lock: opened (`dispute.created`, its amount blocked by the ledger) the first time, closed (`dispute.closed`,
 * won or lost) when its devolução is final; once per message (inbox) and per devolução (its row). A MED for no paid
 * PIX payment of ours, or for more than the payment has left (refunds and other disputes counted), is refused: logged
 * and counted for an operator, never a dispute the books could not carry.
 */
export function recordMedDispute(
  uow: UnitOfWork,
  med: PixMedReported,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    const payment = await lockPayment(tx.manager, med.payment_id);
    const existing = await lockDisputeOf(tx.manager, medKey(med));
    const decision = decideMed(existing, med.status);
    if (decision === null) return;
    let dispute = existing;
    const now = new Date();
    if (decision.open) {
      if (payment?.status !== 'paid' || payment.method !== 'pix') {
        context.logger.warn(
          { payment_id: med.payment_id, devolucao_id: med.devolucao_id, status: payment?.status ?? null },
          'MED for no paid PIX payment: no dispute opened',
        );
        tx.afterCommit(() => disputes.inc({ outcome: 'refused' }));
        return;
      }
      if (med.amount_centavos > disputableCentavos(payment)) {
        context.logger.warn(
          {
            payment_id: payment.id,
            devolucao_id: med.devolucao_id,
            amount_centavos: med.amount_centavos,
            disputable_centavos: disputableCentavos(payment),
          },
          'MED claims more than the payment has left: no dispute opened',
        );
        tx.afterCommit(() => disputes.inc({ outcome: 'refused' }));
        return;
      }
      dispute = await insertOpenDispute(
        tx.manager,
        {
          id: newPublicId('dsp'),
          paymentId: payment.id,
          businessId: payment.businessId,
          method: 'pix',
          externalId: medKey(med),
          amountCentavos: med.amount_centavos,
          reason: med.natureza,
        },
        now,
      );
      await emitDispute(tx, toDisputeRecord(dispute));
      tx.afterCommit(() => disputes.inc({ outcome: 'opened' }));
    }
    if (decision.close !== null && dispute !== null) {
      const outcome = decision.close;
      dispute = await closeDispute(tx.manager, dispute, outcome, now);
      await emitDispute(tx, toDisputeRecord(dispute));
      tx.afterCommit(() => disputes.inc({ outcome }));
    }
    context.logger.info(
      { dispute_id: dispute?.id, payment_id: med.payment_id, status: dispute?.status },
      'dispute recorded',
    );
  });
}
