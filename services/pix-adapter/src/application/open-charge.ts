import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { OpenPixCharge, PixCharge } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { activeTraceHeaders } from '@gateway/observability';
import { toPixCharge } from '../domain/charge-view';
import { devedorOf } from '../domain/devedor';
import { generateTxid } from '../domain/txid';
import { ChargeEntity } from '../persistence';
import { insertChargeOnce } from '../persistence/charge-store';
import { newChargeFacts } from '../persistence/psp-account-store';
import type { PspAccounts } from '../clients/psp/psp-accounts';
import { pspFailure } from '../clients/psp/psp-failure';
import { PspError } from '../clients/psp/psp-error';
import { makeChargeCode } from './shared/make-charge-code';

export interface OpenChargeDeps {
  dataSource: DataSource;
  /** Where the business's charges are opened: its own PSP account, or the platform's. */
  psp: Pick<PspAccounts, 'chargeAccountOf'>;
  /** The platform's receiving key (PIX_KEY). */
  pixKey: string;
  merchantCity: string;
}

/**
 * The txid a payment's cob always gets: deliveries of the open command (concurrent, repeated, or under a new message
 * id) all meet at the PSP on one cob, since `PUT /cob/{txid}` answers a replay with the cob already there.
 */
export function txidOfPayment(paymentId: string): string {
  let round = 0;
  return generateTxid(() =>
    createHash('sha256')
      .update(`${paymentId}:${(round += 1)}`)
      .digest(),
  );
}

/**
 * Registers a cob at the PSP and stores it with its code and QR. The PSP is called outside any transaction (a slow
 * PSP holds no connection); the charge is then stored by one statement, once per payment (its payment id is unique):
 * a payment that already has a charge gets that one back, never a second cob. That makes the command idempotent by
 * the payment, whatever its message id, so it keeps no inbox row: a redelivery finds the charge and answers it.
 */
export async function openCharge(
  deps: OpenChargeDeps,
  command: OpenPixCharge,
  context: MessageContext,
): Promise<PixCharge> {
  // Whether the payment has a charge already and where a new one would go: one round trip for both.
  const facts = await newChargeFacts(deps.dataSource.manager, command.business_id, command.payment_id);
  if (facts.chargeExists)
    return toPixCharge(
      await deps.dataSource.manager.findOneByOrFail(ChargeEntity, { paymentId: command.payment_id }),
    );
  const txid = txidOfPayment(command.payment_id);
  const account = deps.psp.chargeAccountOf(facts.account);
  const request = {
    expiracaoSeconds: command.expires_in_seconds,
    valorCentavos: command.amount_centavos,
    chave: account.pixKey ?? deps.pixKey,
    ...(command.description ? { solicitacaoPagador: command.description } : {}),
  };
  const cob = await account.client
    .createCharge(txid, command.debtor ? { ...request, devedor: devedorOf(command.debtor) } : request)
    .catch((err: unknown) => {
      // A debtor the PSP will not take (its own check of the document or name) must not cost the sale: the charge is
      // opened without one, payable by anyone as it would be without a customer.
      if (!command.debtor || !(err instanceof PspError) || err.kind !== 'invalid') throw err;
      // Which fields it refused, never its words: a PSP may echo the document it refuses.
      context.logger.warn(
        {
          payment_id: command.payment_id,
          psp_problem: err.extra.type ?? null,
          fields: err.extra.violacoes?.map((violation) => violation.propriedade) ?? [],
        },
        "the PSP refused the charge's debtor: charge opened without one",
      );
      return account.client.createCharge(txid, request);
    })
    .catch((err: unknown) => pspFailure(err));
  const merchant = { name: command.business_name, city: deps.merchantCity };
  const code = await makeChargeCode(cob, merchant, context.logger).catch((err: unknown) => pspFailure(err));
  const now = new Date();
  // A concurrent delivery stored it first: same txid, same cob; that row is the answer.
  const charge = await insertChargeOnce(deps.dataSource.manager, {
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
    traceContext: activeTraceHeaders(),
    pspAccountId: account.accountId,
    createdAt: now,
    updatedAt: now,
  });
  context.logger.info(
    { txid, payment_id: command.payment_id, psp_account_id: account.accountId },
    'PIX charge opened',
  );
  return toPixCharge(charge);
}
