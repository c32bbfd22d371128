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

/** PATCHes the cob amount while it is active; the PSP's new revision gets a new code and QR. */
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
      const cob = await deps.psp
        .updateChargeAmount(charge.txid, command.amount_centavos)
        .catch((err: unknown) => pspFailure(err, notActive('encerrada no PSP')));
      const code = await makeChargeCode(
        cob,
        { name: charge.merchantName, city: deps.merchantCity },
        context.logger,
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
      context.logger.info({ txid: charge.txid, revisao: cob.revisao }, 'PIX charge amount changed');
      return toPixCharge(charge);
    });
}
