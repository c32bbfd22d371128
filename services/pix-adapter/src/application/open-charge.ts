import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { OpenPixCharge, PixCharge, PixDue } from '@gateway/contracts';
import { CommandError, type MessageContext } from '@gateway/messaging';
import { activeTraceHeaders } from '@gateway/observability';
import { toPixCharge } from '../domain/charge-view';
import { devedorOf } from '../domain/devedor';
import { cobvCalendarioOf, cobvValorOf, endOfPayableWindow } from '../domain/due-charge';
import { generateTxid } from '../domain/txid';
import { ChargeEntity } from '../persistence';
import { insertChargeOnce } from '../persistence/charge-store';
import { newChargeFacts } from '../persistence/psp-account-store';
import type { ChargeAccount, PspAccounts } from '../clients/psp/psp-accounts';
import type { Cob } from '../clients/psp/cob';
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
  if (command.due) return openDueCharge(deps, command, command.due, txid, account, context);
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
  return storeCharge(deps, command, txid, account, cob, null, context);
}

/**
 * Opens a charge with a due date (`PUT /cobv/{txid}`, its rules as API Pix states them): it needs its debtor (API Pix
 * requires one), so a debtor the PSP refuses fails the opening, as any refusal does (the gateway has checked the CPF or
 * CNPJ and the rules, so the PSP should refuse nothing we took).
 */
async function openDueCharge(
  deps: OpenChargeDeps,
  command: OpenPixCharge,
  due: PixDue,
  txid: string,
  account: ChargeAccount,
  context: MessageContext,
): Promise<PixCharge> {
  if (!command.debtor)
    throw new CommandError('INVALID_FIELDS', 'Uma cobrança com vencimento exige um devedor.');
  // A PSP whose profile opens no cobv is not asked (the business's own account's profile, or the platform's).
  if (!account.client.opensDueCharges()) throw dueDateNotSupported();
  const cobv = await account.client
    .createDueCharge(txid, {
      calendario: cobvCalendarioOf(due),
      valor: cobvValorOf(due, command.amount_centavos),
      chave: account.pixKey ?? deps.pixKey,
      devedor: devedorOf(command.debtor),
      ...(command.description ? { solicitacaoPagador: command.description } : {}),
    })
    .catch((err: unknown) => {
      const refusal = dueChargeRefusal(err);
      if (refusal) {
        context.logger.warn(
          { txid, payment_id: command.payment_id, err },
          'PSP refused the charge with a due date',
        );
        throw refusal;
      }
      return pspFailure(err);
    });
  return storeCharge(deps, command, txid, account, cobv, due, context);
}

/** Stores the charge the PSP opened (once per payment) with its code, and answers what the payer is shown. */
async function storeCharge(
  deps: OpenChargeDeps,
  command: OpenPixCharge,
  txid: string,
  account: ChargeAccount,
  cob: Cob,
  due: PixDue | null,
  context: MessageContext,
): Promise<PixCharge> {
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
    // A cobv ends after its last payable day; a cob after its expiry.
    expiresAt: due
      ? endOfPayableWindow(due)
      : new Date(Date.parse(cob.calendario.criacao) + (cob.calendario.expiracao ?? 0) * 1000),
    paidEndToEndId: null,
    traceContext: activeTraceHeaders(),
    pspAccountId: account.accountId,
    due,
    kind: due ? 'cobv' : 'cob',
    subscriptionId: null,
    cycle: null,
    attemptsReported: 0,
    createdAt: now,
    updatedAt: now,
  });
  context.logger.info(
    { txid, payment_id: command.payment_id, psp_account_id: account.accountId, due_date: due?.date ?? null },
    due ? 'PIX charge with a due date opened' : 'PIX charge opened',
  );
  return toPixCharge(charge);
}

function dueDateNotSupported(detail?: string): CommandError {
  return new CommandError(
    'DUE_DATE_NOT_SUPPORTED',
    `O provedor PIX desta conta não abre cobranças com vencimento (cobv) pela API${detail ? `: ${detail}` : ''}.`,
  );
}

/** The `pix.due` field each part of a cobv's body states (API Pix's `propriedade` of a violation names the part). */
const DUE_FIELDS: Array<[RegExp, string]> = [
  [/calendario\.dataDeVencimento/, 'pix.due.date'],
  [/calendario\.validadeAposVencimento/, 'pix.due.payable_days_after'],
  [/valor\.multa/, 'pix.due.fine'],
  [/valor\.juros/, 'pix.due.interest'],
  [/valor\.abatimento/, 'pix.due.reduction'],
  [/valor\.desconto\.descontoDataFixa/, 'pix.due.discount.until'],
  [/valor\.desconto/, 'pix.due.discount'],
];

/**
 * What a PSP's refusal of `PUT /cobv` tells the merchant, when it is theirs to act on: a refusal naming a date or a rule
 * (`CobVOperacaoInvalida` on `calendario.dataDeVencimento`, say: the PSP's today already past the date the gateway took
 * at 23:59 in São Paulo) is INVALID_FIELDS naming the `pix.due` field, never INTERNAL_ERROR; a 404 or a 403 (a PSP
 * without `/cobv`, a token without the cobv scopes) is DUE_DATE_NOT_SUPPORTED, never retried. Null: as any refusal.
 */
export function dueChargeRefusal(error: unknown): CommandError | null {
  if (!(error instanceof PspError)) return null;
  if (error.status === 404 || error.status === 403)
    return dueDateNotSupported(
      `HTTP ${error.status}${error.status === 403 ? ', sem os escopos cobv.write/cobv.read' : ''}`,
    );
  if (error.kind !== 'invalid') return null;
  const named = (error.extra.violacoes ?? []).map((violation) => violation.propriedade ?? '');
  const fields = new Set<string>();
  for (const property of named.length > 0 ? named : [error.detail]) {
    const field = DUE_FIELDS.find(([pattern]) => pattern.test(property));
    if (field) fields.add(field[1]);
  }
  return fields.size === 0
    ? null
    : new CommandError('INVALID_FIELDS', `Campos inválidos: ${[...fields].join(', ')}.`);
}
