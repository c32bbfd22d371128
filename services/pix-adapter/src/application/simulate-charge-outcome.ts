import type { DataSource } from 'typeorm';
import {
  dayNumber,
  disputeSimulations,
  pixChargeClosed,
  saoPauloDay,
  type PixDue,
  type SimulatePixOutcome,
} from '@gateway/contracts';
import { payableWindow } from '../domain/due-charge';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { openMedOf } from '../persistence/med-store';
import { pspFailure } from '../clients/psp/psp-failure';
import { endActiveCharge, moveExpiryToPast } from '../persistence/charge-store';
import { refundablePixOf, unpaidPixOf } from '../persistence/received-pix-store';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import { chargeNotActive, chargeOf, cobChangeFailure } from './shared/active-charge';
import { isPspRefusal } from '../clients/psp/psp-error';
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
 * first result without calling the PSP again. The attempt is recorded before the PSP is called: when an attempt made
 * the PSP act but its answer was never kept (the database went away before the commit), the retry of the same command
 * meets a cob its own first attempt ended (the PSP refuses to change it, or its callback has already closed the
 * charge) and is accepted, not refused for what it caused. Another command on an ended charge is still refused.
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
  const retry = await deps.uow.wasAttempted(context);
  const charge = await chargeOf(deps.dataSource.manager, command.payment_id);
  if (charge.status !== 'active') {
    if (retry) return deps.uow.once(context, async () => ({ accepted: true as const }));
    throw chargeNotActive(charge.status);
  }
  // A Pix Automático cycle is debited by the payer's bank on its day: its outcomes are the recurrence's simulations.
  if (charge.kind === 'cobr' && command.outcome !== 'expired')
    throw new CommandError(
      'INVALID_STATUS',
      'Operação não permitida: um ciclo de Pix Automático é simulado pela assinatura (fail_next_cycle, avanço do relógio).',
    );
  // A charge with a due date is paid what its PSP says is due on the day (the simulator's date): no other amount.
  if (charge.due !== null && command.outcome === 'paid' && command.amount_centavos !== null)
    throw new CommandError(
      'INVALID_AMOUNT',
      'Uma cobrança com vencimento é paga pelo valor devido no dia do pagamento: não informe o valor.',
    );
  const paidOn = command.paid_on ?? null;
  if (paidOn !== null) checkPaidOn(charge, command.outcome, paidOn);
  if (command.outcome !== 'expired') await deps.uow.recordAttempt(context);
  // On a retry, a PSP refusing to change the cob means the first attempt ended it.
  const refused = retry ? acceptedAfterRetry : cobChangeFailure;
  if (command.outcome === 'paid') {
    const amount = command.amount_centavos;
    // A PSP refuses another amount into a fixed-amount cob: the charge first lets the payer choose it.
    if (amount !== null && amount !== charge.amountCentavos)
      await deps.psp.letPayerChooseAmount(charge.txid, charge.amountCentavos).catch(refused);
    await deps.psp.sandboxPay(charge.txid, amount, paidOn).catch(refused);
  } else if (command.outcome === 'failed') {
    await deps.psp.sandboxRemove(charge.txid).catch(refused);
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

/**
 * `paid_on` is a due-date charge's, paid (`outcome: paid`), on a day between the charge's creation and its
 * `payable_until` (São Paulo): INVALID_FIELDS otherwise.
 */
function checkPaidOn(
  charge: { due: PixDue | null; createdAt: Date },
  outcome: SimulatePixOutcome['outcome'],
  paidOn: string,
): void {
  const day = dayNumber(paidOn);
  const within =
    charge.due !== null &&
    outcome === 'paid' &&
    day !== undefined &&
    day >= saoPauloDay(charge.createdAt) &&
    day <= payableWindow(charge.due).lastDay;
  if (!within)
    throw new CommandError(
      'INVALID_FIELDS',
      'Campos inválidos: paid_on (uma cobrança com vencimento, paga entre a sua criação e payable_until).',
    );
}

/** A retry's PSP call refused: its first attempt changed the cob already. Anything else fails as usual. */
const acceptedAfterRetry = (error: unknown): void => {
  if (isPspRefusal(error)) return;
  cobChangeFailure(error);
};

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
  await chargeOf(manager, command.payment_id);
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
