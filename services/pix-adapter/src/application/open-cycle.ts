import type { DataSource, EntityManager } from 'typeorm';
import { dayNumber, saoPauloMidnight, type OpenPixCycle } from '@gateway/contracts';
import { CommandError, type MessageContext } from '@gateway/messaging';
import { activeTraceHeaders } from '@gateway/observability';
import { centavosToPixAmount } from '../domain/amount';
import { txidOfCycle } from '../domain/recurrence';
import { ChargeEntity } from '../persistence';
import { insertChargeOnce } from '../persistence/charge-store';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import { PspError } from '../clients/psp/psp-error';
import { pspFailure } from '../clients/psp/psp-failure';
import { automaticPixNotSupported } from './open-recurrence';
import { invalidStatus, openedRecurrence } from './shared/opened-recurrence';

export interface OpenCycleDeps {
  dataSource: DataSource;
  psp: { forAccount(accountId: string | null): Promise<ApiPixClient> };
  /** PSP_RECEIVER_ACCOUNT: `agencia/conta/tipoConta`. */
  receiverAccount: string | undefined;
}

/** A cycle stays followed until ten days after its due date (its retries end by the seventh). */
const CYCLE_FOLLOWED_DAYS = 10;

/**
 * Opens a cycle: `PUT /cobr/{txid}` (the txid derived from the subscription and the cycle, so a retried open asks for
 * the same cobr) for the recurrence, stored as a charge of `payment_id` (once per payment), so what follows (its Pix,
 * its cancellation with the payment) is a charge's. The PSP is called outside any transaction. A recurrence no longer
 * approved opens no cycle; but the cobr of a cycle asked before it ended, whose charge was never recorded, is read
 * back from the PSP and answered, so that it gets its payment (the payment service asks again for an ask it never
 * heard back from).
 */
export async function openCycle(
  deps: OpenCycleDeps,
  command: OpenPixCycle,
  context: MessageContext,
): Promise<{ txid: string }> {
  const { manager } = deps.dataSource;
  const existing = await manager.findOneBy(ChargeEntity, { paymentId: command.payment_id });
  if (existing) {
    if (existing.subscriptionId !== command.subscription_id || existing.cycle !== command.cycle)
      throw new CommandError('INVALID_FIELDS', 'Campos inválidos: payment_id (já tem outra cobrança).');
    return { txid: existing.txid };
  }
  const recurrence = await openedRecurrence(deps.dataSource, command.subscription_id);
  const txid = txidOfCycle(command.subscription_id, command.cycle);
  if (recurrence.pspStatus !== 'APROVADA') {
    // Asked before the recurrence ended, this cycle's cobr may be at the PSP though its charge was never recorded (the
    // first ask's answer lost): read back by its txid, it is recorded and answered, so it gets its payment.
    if (!(await cobrAskedEarlier(deps, recurrence, txid)))
      throw invalidStatus(`não está autorizada (${recurrence.pspStatus ?? 'em abertura'})`);
    return recordCycleCharge(manager, command, txid, recurrence.pspAccountId, context);
  }
  if (deps.receiverAccount === undefined)
    throw automaticPixNotSupported('PSP_RECEIVER_ACCOUNT não configurada');
  const [agencia, conta, tipoConta] = deps.receiverAccount.split('/') as [string, string, string];
  const client = await deps.psp.forAccount(recurrence.pspAccountId);
  await client
    .createCycle(txid, {
      idRec: recurrence.idRec,
      calendario: { dataDeVencimento: command.due_date },
      valor: { original: centavosToPixAmount(command.amount_centavos) },
      // Required by API Pix (`CobRBase`). True, the document's default: a due date on a non-business day is debited on
      // the next business day by the payer's municipality's calendar, which only the payer's bank knows (the payment
      // service keeps calendar due dates and leaves this move to the PSP, ADR 0048); a debit on a day the payer's
      // bank does not settle would only fail.
      ajusteDiaUtil: true,
      recebedor: { ...(agencia === '' ? {} : { agencia }), conta, tipoConta },
      ...(command.description === null ? {} : { infoAdicional: command.description }),
    })
    .catch((err: unknown) => cycleRefusal(err));
  return recordCycleCharge(manager, command, txid, recurrence.pspAccountId, context);
}

/** Whether the PSP holds a cobr of this txid for this recurrence (a PSP that cannot answer now fails as usual). */
async function cobrAskedEarlier(
  deps: OpenCycleDeps,
  recurrence: { idRec: string; pspAccountId: string | null },
  txid: string,
): Promise<boolean> {
  const client = await deps.psp.forAccount(recurrence.pspAccountId);
  const cobr = await client.getCycle(txid).catch((error: unknown) => {
    if (error instanceof PspError && error.kind === 'not_found') return null;
    return pspFailure(error);
  });
  return cobr?.idRec === recurrence.idRec;
}

/** The cycle's cobr, at the PSP, recorded as a charge of its payment (once per payment). */
async function recordCycleCharge(
  manager: EntityManager,
  command: OpenPixCycle,
  txid: string,
  pspAccountId: string | null,
  context: MessageContext,
): Promise<{ txid: string }> {
  const now = new Date();
  await insertChargeOnce(manager, {
    txid,
    paymentId: command.payment_id,
    amountCentavos: command.amount_centavos,
    status: 'active',
    revisao: 0,
    // A cycle is debited by the payer's bank: no code is shown.
    location: '',
    merchantName: '',
    copiaECola: '',
    qrCode: '',
    expiresAt: saoPauloMidnight(dayNumber(command.due_date)! + CYCLE_FOLLOWED_DAYS),
    paidEndToEndId: null,
    traceContext: activeTraceHeaders(),
    pspAccountId,
    due: null,
    kind: 'cobr',
    subscriptionId: command.subscription_id,
    cycle: command.cycle,
    attemptsReported: 0,
    createdAt: now,
    updatedAt: now,
  });
  context.logger.info(
    { txid, payment_id: command.payment_id, subscription_id: command.subscription_id, cycle: command.cycle },
    'Pix Automático cycle opened',
  );
  return { txid };
}

/** A refused cobr: the recurrence not approved -> INVALID_STATUS; a date or amount -> INVALID_FIELDS naming ours. */
function cycleRefusal(error: unknown): never {
  if (error instanceof PspError && error.kind === 'invalid') {
    const named = (error.extra.violacoes ?? []).map((violation) => violation.propriedade ?? '');
    if (named.some((property) => /idRec/.test(property))) throw invalidStatus('não está autorizada no PSP');
    const fields = [
      ...(named.some((property) => /dataDeVencimento/.test(property)) ? ['due_date'] : []),
      ...(named.some((property) => /valor/.test(property)) ? ['amount_centavos'] : []),
    ];
    if (fields.length > 0)
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${fields.join(', ')}.`);
  }
  return pspFailure(error);
}
