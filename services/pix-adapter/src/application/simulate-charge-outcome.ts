import type { DataSource } from 'typeorm';
import { disputeSimulations, pixChargeClosed, type SimulatePixOutcome } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { ChargeEntity } from '../persistence';
import { openMedOf } from '../persistence/med-store';
import { pspFailure } from '../clients/psp/psp-failure';
import { endActiveCharge, moveExpiryToPast } from '../persistence/charge-store';
import { refundablePixOf, unpaidPixOf } from '../persistence/received-pix-store';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import { activeChargeOf, cobChangeFailure } from './shared/active-charge';
import { devolucaoIdFor } from './shared/request-refund-devolucao';

export interface SimulateOutcomeDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ChargePsp;
  appEnv: 'sandbox' | 'production';
  /** Called after an `expired` simulation commits, so the sweeper closes the charge now. */
  onExpiryMoved: () => void;
}

/**
 * Sandbox only, and without shortcuts: `paid` has the PSP simulator pay the cob (its callback then confirms it),
 * `failed` has the PSP remove the cob, `expired` moves the charge's clock past its window for the sweeper; the dispute
 * outcomes have the PSP raise or end a MED on the paid charge's Pix (`simulateMed`). The PSP is
 * called outside any transaction; what follows commits with the inbox row, so a redelivered command answers the
 * first result without calling the PSP again.
 */
export async function simulateChargeOutcome(
  deps: SimulateOutcomeDeps,
  command: SimulatePixOutcome,
  context: MessageContext,
): Promise<{ accepted: true }> {
  if (deps.appEnv !== 'sandbox') throw new CommandError('NOT_FOUND', 'Recurso não encontrado.');
  const stored = await deps.uow.storedResult<{ accepted: true }>(context);
  if (stored) return stored.value;
  if (disputeSimulations.has(command.outcome)) {
    await simulateMed(deps, command, context);
    return deps.uow.once(context, async () => ({ accepted: true as const }));
  }
  const charge = await activeChargeOf(deps.dataSource.manager, command.payment_id);
  if (command.outcome === 'paid') {
    const amount = command.amount_centavos;
    // A PSP refuses another amount into a fixed-amount cob: the charge first lets the payer choose it.
    if (amount !== null && amount !== charge.amountCentavos)
      await deps.psp.letPayerChooseAmount(charge.txid, charge.amountCentavos).catch(cobChangeFailure);
    await deps.psp.sandboxPay(charge.txid, amount).catch(cobChangeFailure);
  } else if (command.outcome === 'failed') {
    await deps.psp.sandboxRemove(charge.txid).catch(cobChangeFailure);
  }
  const result = await deps.uow.once(context, async (tx) => {
    if (command.outcome === 'failed') {
      // Only a charge still active: one paid or closed meanwhile keeps its outcome.
      if ((await endActiveCharge(tx.manager, charge.txid, 'failed')) === 1) {
        await tx.emit(pixChargeClosed, {
          payment_id: charge.paymentId,
          txid: charge.txid,
          reason: 'failed',
          detail: 'REMOVIDA_PELO_PSP',
          received_pix: await unpaidPixOf(tx.manager, charge.txid),
        });
      }
    } else if (command.outcome === 'expired') {
      await moveExpiryToPast(tx.manager, charge.txid);
    }
    return { accepted: true as const };
  });
  if (command.outcome === 'expired') deps.onExpiryMoved();
  return result;
}

const noOpenMed = () =>
  new CommandError('INVALID_STATUS', 'Operação não permitida: o pagamento não tem disputa (MED) aberta.');

/**
 * Sandbox only: the PSP simulator raises a MED on the Pix that paid the charge (`disputed`: a devolução of natureza
 * MED_FRAUDE whose id follows from the command, so a redelivery meets the same one) or ends the payment's open one
 * (`dispute_lost`: DEVOLVIDO, `dispute_won`: NAO_REALIZADO). Nothing is recorded here: the PSP's callback (or the poll)
 * brings the MED in as in production.
 */
async function simulateMed(
  deps: { dataSource: DataSource; psp: ChargePsp },
  command: SimulatePixOutcome,
  context: MessageContext,
): Promise<void> {
  const { manager } = deps.dataSource;
  const charge = await manager.findOneBy(ChargeEntity, { paymentId: command.payment_id });
  if (!charge) throw new CommandError('NOT_FOUND', 'Cobrança PIX não encontrada.');
  const refused = noOpenMed();
  if (command.outcome === 'disputed') {
    const endToEndId = await refundablePixOf(manager, command.payment_id);
    if (endToEndId === null)
      throw new CommandError('INVALID_STATUS', 'Operação não permitida: a cobrança PIX não foi paga.');
    const id = devolucaoIdFor(`med:${context.envelope.id}`);
    await deps.psp
      .sandboxRaiseMed(endToEndId, id, command.amount_centavos)
      .catch((error: unknown) =>
        pspFailure(error, new CommandError('INVALID_AMOUNT', 'O PSP recusou o MED.')),
      );
    return;
  }
  const med = await openMedOf(manager, command.payment_id);
  if (!med) throw refused;
  await deps.psp
    .sandboxEndMed(
      med.end_to_end_id,
      med.devolucao_id,
      command.outcome === 'dispute_lost' ? 'DEVOLVIDO' : 'NAO_REALIZADO',
    )
    .catch((error: unknown) => pspFailure(error, refused));
}
