import type { CancelledPixRecurrence, CancelPixRecurrence } from '@gateway/contracts';
import { In } from 'typeorm';
import type { MessageContext } from '@gateway/messaging';
import { ChargeEntity, RecurrenceEntity } from '../persistence';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import { isPspRefusal } from '../clients/psp/psp-error';
import { pspFailure } from '../clients/psp/psp-failure';
import { followRecurrence, type FollowRecurrenceDeps } from './follow-recurrence';
import { invalidStatus, openedRecurrence } from './shared/opened-recurrence';

/**
 * The merchant cancels (`PATCH /rec/{idRec}` CANCELADA), then the cycles still open are cancelled where API Pix allows
 * (before the day of their debit; their callbacks close them). The change is recorded and reported as a callback's
 * would be, once: a retried command finds it cancelled by us and answers the same; a recurrence the PSP ended
 * otherwise is INVALID_STATUS (its own pix.recurrence.changed.v1 tells why). The answer names the cycles the PSP did
 * not cancel (their debit day had come, or the debit was made and its callback is on its way): the payment service
 * leaves them to their outcome at the PSP, so a debit made before the cancel is a paid cycle.
 */
export async function cancelRecurrence(
  deps: FollowRecurrenceDeps,
  command: CancelPixRecurrence,
  context: MessageContext,
): Promise<CancelledPixRecurrence> {
  const recurrence = await openedRecurrence(deps.dataSource, command.subscription_id);
  const client = await deps.psp.forAccount(recurrence.pspAccountId);
  if (recurrence.pspStatus === 'CRIADA' || recurrence.pspStatus === 'APROVADA') {
    const rec = await client.cancelRecurrence(recurrence.idRec).catch(async (err: unknown) => {
      if (!isPspRefusal(err)) return pspFailure(err);
      // Refused: it ended meanwhile (by us, a first attempt whose answer was lost, or otherwise).
      return client.getRecurrence(recurrence.idRec).catch((readErr: unknown) => pspFailure(readErr));
    });
    await followRecurrence(deps, recurrence, rec);
  }
  const now = await deps.dataSource.manager.findOneByOrFail(RecurrenceEntity, {
    subscriptionId: command.subscription_id,
  });
  if (now.pspStatus !== 'CANCELADA' || now.cancelledBy !== 'merchant')
    throw invalidStatus(`está ${now.pspStatus ?? 'em abertura'}`);
  return {
    cancelled: true,
    kept_payment_ids: await cancelOpenCycles(deps, client, command.subscription_id, context),
  };
}

/**
 * Cancels the subscription's cycles still open at the PSP; answers the payment ids of those it did not cancel: refused
 * on the day of their debit (the debit's outcome stands, and is reported as usual), and those debited already (paid
 * here, their payment event on its way).
 */
async function cancelOpenCycles(
  deps: FollowRecurrenceDeps,
  client: ApiPixClient,
  subscriptionId: string,
  context: MessageContext,
): Promise<string[]> {
  const charges = await deps.dataSource.manager.findBy(ChargeEntity, {
    subscriptionId,
    status: In(['active', 'paid']),
  });
  const kept: string[] = [];
  for (const charge of charges) {
    if (charge.status === 'paid') {
      kept.push(charge.paymentId);
      continue;
    }
    const cancelled = await client.cancelCycle(charge.txid).then(
      () => true,
      (err: unknown) => {
        if (!isPspRefusal(err)) return pspFailure(err);
        context.logger.info(
          { txid: charge.txid, err: String(err) },
          'cycle of a cancelled subscription not cancellable',
        );
        return false;
      },
    );
    if (!cancelled) kept.push(charge.paymentId);
  }
  return kept;
}
