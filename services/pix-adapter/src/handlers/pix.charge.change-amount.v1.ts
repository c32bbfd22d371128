import type { ChangePixChargeAmount, PixCharge } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { makeChargeCode } from '../charge-code';
import { ChargeEntity } from '../persistence';
import type { ApiPixClient } from '../psp/api-pix-client';
import { pspFailure } from '../psp-failure';
import { toPixCharge } from './charge-view';

export interface ChangeAmountDeps {
  uow: UnitOfWork;
  psp: ApiPixClient;
  merchantCity: string;
}

const notActive = (status: string) =>
  new CommandError('INVALID_STATUS', `Operação não permitida: a cobrança PIX está com status ${status}.`);

/**
 * Moves the active cob to a new location with its new amount, in one revision (API Pix v2 `PATCH` with `loc.id`),
 * so the payer gets a new BR Code and QR and the old code no longer leads to this charge.
 */
export function handleChangeChargeAmount(deps: ChangeAmountDeps) {
  return async (command: ChangePixChargeAmount, context: MessageContext): Promise<PixCharge> =>
    deps.uow.once(context, async (tx) => {
      const charge = await tx.manager.findOne(ChargeEntity, {
        where: { paymentId: command.payment_id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!charge) throw new CommandError('NOT_FOUND', 'Cobrança PIX não encontrada.');
      if (charge.status !== 'active') throw notActive(charge.status);
      if (charge.amountCentavos === command.amount_centavos) return toPixCharge(charge);
      const location = await deps.psp.createLocation().catch((err: unknown) => pspFailure(err));
      const cob = await deps.psp
        .updateChargeAmount(charge.txid, command.amount_centavos, location.id)
        .catch((err: unknown) => pspFailure(err, notActive('encerrada no PSP')));
      const code = await makeChargeCode(
        cob,
        { name: charge.merchantName, city: deps.merchantCity },
        context.logger,
        location.location,
      ).catch((err: unknown) => pspFailure(err));
      Object.assign(charge, {
        amountCentavos: command.amount_centavos,
        revisao: cob.revisao,
        location: code.location,
        copiaECola: code.copiaECola,
        qrCode: code.qrCode,
        updatedAt: new Date(),
      });
      await tx.manager.save(charge);
      context.logger.info(
        { txid: charge.txid, revisao: cob.revisao, loc_id: location.id },
        'PIX charge amount changed, new location',
      );
      return toPixCharge(charge);
    });
}
