import { newPublicId, type AdjustmentRecord, type CreateAdjustment } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import {
  adjustmentPosting,
  adjustmentRequest,
  debitRefusal,
  isRefusal,
  isSameAdjustment,
  type Refusal,
} from '../domain/adjustment';
import { findAdjustmentByKey, insertAdjustment, lockAdjustmentKey, lockBalance } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { claimAndWrite } from './shared/write-posting';

const refused = (refusal: Refusal) => new CommandError(refusal.code, refusal.message);

/**
 * `ledger.adjustment.create.v1` (the operator's; docs/money-model.md#adjustments): one balanced journal, the
 * business's `adjustment` balance transaction when it moves a business's `available`, and the adjustment's record,
 * in one transaction. Once per command (its inbox: a redelivery answers the adjustment it made) and once per
 * Idempotency-Key (the same request again answers the first one's adjustment; another request under the key is
 * IDEMPOTENCY_CONFLICT). A debit larger than `available` is refused under the balance row's lock unless the operator
 * allowed a negative balance.
 */
export function postAdjustment(
  uow: UnitOfWork,
  command: CreateAdjustment,
  context: MessageContext,
): Promise<AdjustmentRecord> {
  return uow.once(context, async (tx) => {
    const request = adjustmentRequest(command);
    if (isRefusal(request)) throw refused(request);
    const key = command.idempotency_key ?? null;
    if (key !== null) {
      await lockAdjustmentKey(tx.manager, key);
      const earlier = await findAdjustmentByKey(tx.manager, key);
      if (earlier !== null) {
        if (isSameAdjustment(earlier, request)) return earlier;
        throw new CommandError(
          'IDEMPOTENCY_CONFLICT',
          'Esta chave de idempotência já fez outro ajuste, com outros campos.',
        );
      }
    }
    if (request.businessId !== null) {
      const balance = await lockBalance(tx.manager, request.businessId);
      const refusal = debitRefusal(request, Number(balance.availableCentavos));
      if (refusal !== null) throw refused(refusal);
    }
    const adjustmentId = newPublicId('adj');
    const at = new Date();
    const journalId = await claimAndWrite(tx.manager, adjustmentPosting(request, adjustmentId, at));
    if (journalId === null) throw new Error(`adjustment ${adjustmentId}: its journal is posted already`);
    const adjustment = await insertAdjustment(tx.manager, {
      id: adjustmentId,
      kind: request.kind,
      businessId: request.businessId,
      amountCentavos: request.amountCentavos,
      debitAccount: request.debitAccount,
      creditAccount: request.creditAccount,
      allowNegativeAvailable: request.allowNegativeAvailable,
      reason: request.reason,
      requestedBy: command.requested_by,
      idempotencyKey: key,
      journalId,
      createdAt: at,
    });
    tx.afterCommit(() => recordJournalPosted('adjustment'));
    return adjustment;
  });
}
