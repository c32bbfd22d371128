import type { DataSource } from 'typeorm';
import type { ChangePixChargeAmount, PixCharge } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { toPixCharge } from '../domain/charge-view';
import { lockCharge } from '../persistence/charge-store';
import type { PspAccounts } from '../clients/psp/psp-accounts';
import { pspFailure } from '../clients/psp/psp-failure';
import { activeChargeOf, chargeNotActive, cobChangeFailure } from './shared/active-charge';
import { makeChargeCode } from './shared/make-charge-code';

export interface ChangeAmountDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  /** The account the charge was opened at answers for it: its location is made there too. */
  psp: Pick<PspAccounts, 'forTxid'>;
  merchantCity: string;
}

/**
 * Moves the active cob to a new location with its new amount, in one revision (API Pix v2 `PATCH` with `loc.id`),
 * so the payer gets a new BR Code and QR and the old code no longer leads to this charge. The PSP is called outside
 * any transaction (the payment service lets one amount change of a payment run at a time); the new revision is then
 * stored in a short one, unless the charge ended meanwhile or a later revision is stored already.
 */
export async function changeChargeAmount(
  deps: ChangeAmountDeps,
  command: ChangePixChargeAmount,
  context: MessageContext,
): Promise<PixCharge> {
  const charge = await activeChargeOf(deps.dataSource.manager, command.payment_id);
  // Nothing to change (or a redelivery of a change already stored): the inbox answers.
  if (charge.amountCentavos === command.amount_centavos)
    return deps.uow.once(context, async () => toPixCharge(charge));
  // The payment service never asks it of a charge with a due date (its amount is part of rules the payer may have
  // read already); refused here too, before anything reaches the PSP.
  if (charge.due !== null)
    throw new CommandError('INVALID_STATUS', 'O valor de uma cobrança com vencimento não muda.');
  // Nor of a Pix Automático cycle (its cobr is debited as it was sent to the payer's bank).
  if (charge.kind === 'cobr')
    throw new CommandError('INVALID_STATUS', 'O valor de um ciclo de Pix Automático não muda.');
  const psp = await deps.psp.forTxid(charge.txid);
  const location = await psp.createLocation().catch((err: unknown) => pspFailure(err));
  const cob = await psp
    .updateChargeAmount(charge.txid, command.amount_centavos, location.id)
    .catch(cobChangeFailure);
  const code = await makeChargeCode(
    cob,
    { name: charge.merchantName, city: deps.merchantCity },
    context.logger,
    location.location,
  ).catch((err: unknown) => pspFailure(err));
  return deps.uow.once(context, async (tx) => {
    const current = await lockCharge(tx.manager, charge.txid);
    if (!current) throw new Error(`charge ${charge.txid} vanished`);
    if (current.status !== 'active') throw chargeNotActive(current.status);
    if (current.revisao >= cob.revisao) return toPixCharge(current);
    Object.assign(current, {
      amountCentavos: command.amount_centavos,
      revisao: cob.revisao,
      location: code.location,
      copiaECola: code.copiaECola,
      qrCode: code.qrCode,
      updatedAt: new Date(),
    });
    await tx.manager.save(current);
    context.logger.info(
      { txid: current.txid, revisao: cob.revisao, loc_id: location.id },
      'PIX charge amount changed, new location',
    );
    return toPixCharge(current);
  });
}
