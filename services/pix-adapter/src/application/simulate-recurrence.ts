import type { DataSource } from 'typeorm';
import type { SimulatePixRecurrence } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import { isPspRefusal } from '../clients/psp/psp-error';
import { pspFailure } from '../clients/psp/psp-failure';
import { invalidStatus, openedRecurrence } from './shared/opened-recurrence';

export interface SimulateRecurrenceDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: { forAccount(accountId: string | null): Promise<ApiPixClient> } & Pick<ChargePsp, 'sandboxPay'>;
  appEnv: 'sandbox' | 'production';
}

/**
 * Sandbox only, without shortcuts: the simulator's payer's bank acts (authorizes or rejects the request, pays journey
 * 3's QR code, cancels, fails the next cycle's next attempt) and its callbacks bring the change, as in production. The
 * attempt is recorded before the PSP is asked, so a retry whose first answer was lost accepts the PSP's refusal of what
 * its first attempt did; an outcome that does not apply now is INVALID_STATUS.
 */
export async function simulateRecurrence(
  deps: SimulateRecurrenceDeps,
  command: SimulatePixRecurrence,
  context: MessageContext,
): Promise<{ accepted: true }> {
  if (deps.appEnv !== 'sandbox') throw new CommandError('NOT_FOUND', 'Recurso não encontrado.');
  const stored = await deps.uow.storedResult<{ accepted: true }>(context);
  if (stored) return stored.value;
  const retry = await deps.uow.wasAttempted(context);
  const recurrence = await openedRecurrence(deps.dataSource, command.subscription_id);
  const needs = command.outcome === 'authorize' || command.outcome === 'reject' ? 'CRIADA' : 'APROVADA';
  if (!retry && recurrence.pspStatus !== needs) throw invalidStatus(`está ${recurrence.pspStatus}`);
  const client = await deps.psp.forAccount(recurrence.pspAccountId);
  let act: () => Promise<void>;
  if (command.outcome === 'authorize' || command.outcome === 'reject') {
    const accept = command.outcome === 'authorize';
    const { idSolicRec, locId, firstPaymentTxid } = recurrence;
    if (recurrence.journey === 'push' && idSolicRec !== null)
      act = () => client.sandboxAnswerAuthorization({ idSolicRec }, accept);
    else if (recurrence.journey === 'qr' && locId !== null)
      // Journey 2: the payer's bank reads the QR code, the recurrence at its location, and the payer answers it.
      act = () => client.sandboxAnswerAuthorization({ locId }, accept);
    else if (recurrence.journey === 'qr_with_first_payment' && accept && firstPaymentTxid !== null)
      // Journey 3: the payer pays the first cycle's charge by the QR code, which authorizes the recurrence.
      act = () => deps.psp.sandboxPay(firstPaymentTxid, null);
    else if (recurrence.journey === 'qr_with_first_payment')
      // Journey 3 has no refusal to simulate: the authorization is tied to the first payment (`dadosJornada.txid`),
      // API Pix describes no rejection of a composed QR, and a REJEITADA recurrence would leave that payment payable
      // for a subscription that can never start. The payer refuses by not paying: the recurrence expires.
      throw invalidStatus(
        'da jornada QR com pagamento é recusada pelo pagador não pagando o QR code: deixe-a expirar',
      );
    else throw invalidStatus('ainda não foi apresentada ao pagador');
  } else if (command.outcome === 'payer_cancel') {
    act = () => client.sandboxPayerCancel(recurrence.idRec);
  } else {
    act = () => client.sandboxFailNextCycle(recurrence.idRec);
  }
  await deps.uow.recordAttempt(context);
  await act().catch((err: unknown) => {
    if (retry && isPspRefusal(err)) return;
    pspFailure(err, invalidStatus('não admite esta simulação agora'));
  });
  return deps.uow.once(context, async () => ({ accepted: true as const }));
}
