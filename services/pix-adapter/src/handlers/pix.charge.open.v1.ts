import { randomBytes } from 'node:crypto';
import type { OpenPixCharge, PixCharge } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { makeChargeCode } from '../charge-code';
import { generateTxid } from '../domain/txid';
import { ChargeEntity } from '../persistence';
import type { ApiPixClient } from '../psp/api-pix-client';
import { pspFailure } from '../psp-failure';
import { toPixCharge } from './charge-view';

export interface OpenChargeDeps {
  uow: UnitOfWork;
  psp: ApiPixClient;
  pixKey: string;
  merchantCity: string;
}

/**
 * Registers a cob at the PSP and stores it with its code and QR. The inbox row taken first serialises duplicate
 * deliveries; a payment that already has a charge gets that one back, never a second cob.
 */
export function handleOpenCharge(deps: OpenChargeDeps) {
  return async (command: OpenPixCharge, context: MessageContext): Promise<PixCharge> =>
    deps.uow.once(context, async (tx) => {
      const existing = await tx.manager.findOneBy(ChargeEntity, { paymentId: command.payment_id });
      if (existing) return toPixCharge(existing);
      const txid = generateTxid(randomBytes);
      const cob = await deps.psp
        .createCharge(txid, {
          expiracaoSeconds: command.expires_in_seconds,
          valorCentavos: command.amount_centavos,
          chave: deps.pixKey,
        })
        .catch((err: unknown) => pspFailure(err));
      const merchant = { name: command.business_name, city: deps.merchantCity };
      const code = await makeChargeCode(cob, merchant, context.logger).catch((err: unknown) =>
        pspFailure(err),
      );
      const now = new Date();
      const charge = await tx.manager.save(
        tx.manager.create(ChargeEntity, {
          txid,
          paymentId: command.payment_id,
          amountCentavos: command.amount_centavos,
          status: 'active',
          revisao: cob.revisao,
          location: code.location,
          merchantName: merchant.name,
          copiaECola: code.copiaECola,
          qrCode: code.qrCode,
          expiresAt: new Date(Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000),
          paidEndToEndId: null,
          createdAt: now,
          updatedAt: now,
        }),
      );
      context.logger.info({ txid, payment_id: command.payment_id }, 'PIX charge opened');
      return toPixCharge(charge);
    });
}
