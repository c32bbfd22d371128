import type { DataSource } from 'typeorm';
import type { DisputeRecord, SubmitDisputeDefence } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import type { Rails } from '../clients';
import { defenceRefusal, toDisputeRecord } from '../domain/dispute';
import { findDispute, markDefenceSubmitted } from '../persistence';

export interface DefendDisputeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Pick<Rails, 'of'>;
}

const defences = counter(
  'payment_dispute_defences_total',
  'Defences of disputes the PSP took (submitted), by the businesses through POST /v1/disputes/{id}/defence',
  ['outcome'],
);

/**
 * Sends the business's defence of its open, undefended dispute to the rail that holds it (the PIX adapter, which sends
 * it to the PSP), then records when (docs/adr/0033-med-disputes.md#decision). The rail is called outside any
 * transaction, under an id that follows from this command's, so a redelivery reaches it as the same call; what follows
 * commits with the inbox row, so a redelivered command answers the first result. Another business's dispute is
 * NOT_FOUND; a closed or already defended one INVALID_STATUS; the rail's refusals pass through as they are.
 */
export async function defendDispute(
  deps: DefendDisputeDeps,
  command: SubmitDisputeDefence,
  context: MessageContext,
): Promise<DisputeRecord> {
  const stored = await deps.uow.storedResult<DisputeRecord>(context);
  if (stored) return stored.value;
  const dispute = await findDispute(deps.dataSource.manager, command.dispute_id, command.business_id);
  if (!dispute) throw new CommandError('NOT_FOUND', 'Disputa não encontrada.');
  const refusal = defenceRefusal(dispute);
  if (refusal !== null) throw new CommandError('INVALID_STATUS', refusal);
  await deps.rails
    .of(dispute.method)
    .defendDispute({ paymentId: dispute.paymentId, externalId: dispute.externalId }, command.text, context);
  return deps.uow.once(context, async (tx) => {
    // Closed or defended meanwhile (a MED that ended as the defence went out): the dispute as it now stands.
    const defended =
      (await markDefenceSubmitted(tx.manager, dispute.id, new Date())) ??
      (await findDispute(tx.manager, dispute.id, dispute.businessId))!;
    tx.afterCommit(() => defences.inc({ outcome: 'submitted' }));
    context.logger.info(
      { dispute_id: dispute.id, payment_id: dispute.paymentId },
      'dispute defence submitted',
    );
    return toDisputeRecord(defended);
  });
}
