import type { OpenPixRecurrence, PixInstructions, PixRecurrence } from '@gateway/contracts';
import { CommandError, type MessageContext } from '@gateway/messaging';
import { qrPngDataUri } from '@gateway/qr-png';
import { centavosToPixAmount } from '../domain/amount';
import { devedorOf } from '../domain/devedor';
import { contractOf, PERIODICIDADE, POLITICA_RETENTATIVA, VINCULO_MAX } from '../domain/recurrence';
import { RecurrenceEntity } from '../persistence';
import { newChargeFacts } from '../persistence/psp-account-store';
import {
  claimUnopenedRecurrence,
  insertRecurrenceOnce,
  recordRecurrenceOpened,
  releaseRecurrenceClaim,
} from '../persistence/recurrence-store';
import type { ApiPixClient, CreateRecInput } from '../clients/psp/api-pix-client';
import type { PspAccounts } from '../clients/psp/psp-accounts';
import type { Rec } from '../clients/psp/rec';
import { PspError } from '../clients/psp/psp-error';
import { pspFailure } from '../clients/psp/psp-failure';
import { openCharge, type OpenChargeDeps } from './open-charge';

export interface OpenRecurrenceDeps extends OpenChargeDeps {
  psp: Pick<PspAccounts, 'chargeAccountOf'>;
  /** PSP_RECEIVER_ACCOUNT: without it no cycle can be opened, so no recurrence is. */
  receiverAccount: string | undefined;
  /** How long a delivery that asks the PSP for the recurrence holds it before another may try (its answer lost). */
  openingClaimMs?: number;
}

/** AUTOMATIC_PIX_NOT_SUPPORTED, with why. */
export function automaticPixNotSupported(detail: string): CommandError {
  return new CommandError(
    'AUTOMATIC_PIX_NOT_SUPPORTED',
    `O provedor PIX desta conta não oferece Pix Automático pela API: ${detail}.`,
  );
}

/**
 * Opens a subscription's recurrence at the PSP (`POST /rec`) and what its journey needs: the request to the payer's
 * bank (`POST /solicrec`, journey 1), or a location and the QR code that authorizes it (journey 2), paying the first
 * cycle's immediate charge as well (journey 3, the cob opened first and named in `ativacao.dadosJornada.txid`).
 *
 * `POST /rec` is not idempotent (the PSP names the recurrence), so the recurrence is recorded before the PSP is asked,
 * claimed by the delivery that records it: another delivery meanwhile is told to retry (SERVICE_UNAVAILABLE); one
 * after the claim lapsed (its answer lost) first looks for the recurrence at the PSP (its `vinculo.contrato` is the
 * subscription) before asking for one. Every later step is kept as it is done, so a retry goes on where it stopped.
 * No transaction is held while the PSP answers.
 */
export async function openRecurrence(
  deps: OpenRecurrenceDeps,
  command: OpenPixRecurrence,
  context: MessageContext,
): Promise<PixRecurrence> {
  checkJourney(command);
  const { manager } = deps.dataSource;
  const claimMs = deps.openingClaimMs ?? 30_000;
  let recurrence = await manager.findOneBy(RecurrenceEntity, { subscriptionId: command.subscription_id });
  const facts = await newChargeFacts(manager, command.business_id, command.subscription_id);
  const account = deps.psp.chargeAccountOf(facts.account);
  const client = account.client;
  if (!recurrence) {
    // Cycles name the platform's receiving account: a business's own account takes no subscription yet.
    if (account.accountId !== null) throw automaticPixNotSupported('conta PSP própria do negócio');
    if (!client.opensRecurrences()) throw automaticPixNotSupported('perfil do PSP sem Pix Automático');
    if (deps.receiverAccount === undefined)
      throw automaticPixNotSupported('PSP_RECEIVER_ACCOUNT não configurada');
  }
  let firstAttempt = false;
  if (!recurrence || recurrence.idRec === null) {
    if (!recurrence) {
      const inserted = await insertRecurrenceOnce(
        manager,
        {
          subscriptionId: command.subscription_id,
          businessId: command.business_id,
          journey: command.journey,
          retryPolicy: command.retry_policy,
          idRec: null,
          pspStatus: null,
          idSolicRec: null,
          locId: null,
          firstPaymentId: command.first_payment?.payment_id ?? null,
          firstPaymentTxid: null,
          authorizationShown: null,
          authorizationExpiresAt: new Date(command.authorization_expires_at),
          cancelledBy: null,
          pspAccountId: account.accountId,
        },
        claimMs,
      );
      recurrence = inserted.recurrence;
      firstAttempt = inserted.inserted;
    }
    if (recurrence.idRec === null) {
      if (!firstAttempt && !(await claimUnopenedRecurrence(manager, command.subscription_id, claimMs)))
        throw new CommandError('SERVICE_UNAVAILABLE', 'A recorrência está sendo aberta. Tente novamente.');
      recurrence = await askForRecurrence(deps, client, command, recurrence, firstAttempt, context);
    }
  }
  return completeJourney(deps, client, command, recurrence);
}

/** The journey's own fields: INVALID_FIELDS when one is missing or given where it does not belong. */
function checkJourney(command: OpenPixRecurrence): void {
  const wrong: string[] = [];
  if ((command.journey === 'push') !== (command.payer_account !== null)) wrong.push('payer_account');
  if ((command.journey === 'qr_with_first_payment') !== (command.first_payment !== null))
    wrong.push('first_payment');
  if ((command.amount_centavos === null) === (command.minimum_amount_centavos === null))
    wrong.push('amount_centavos', 'minimum_amount_centavos');
  if (command.end_date !== null && command.end_date < command.start_date) wrong.push('end_date');
  if (wrong.length > 0) throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${wrong.join(', ')}.`);
}

/** Journey 3's charge, then the recurrence at the PSP (found again after a lost answer), kept with its idRec. */
async function askForRecurrence(
  deps: OpenRecurrenceDeps,
  client: ApiPixClient,
  command: OpenPixRecurrence,
  recurrence: RecurrenceEntity,
  firstAttempt: boolean,
  context: MessageContext,
): Promise<RecurrenceEntity> {
  const { manager } = deps.dataSource;
  try {
    const firstPaymentTxid = await openFirstPayment(deps, command, context);
    const found = firstAttempt ? undefined : await findAtPsp(client, command, recurrence.createdAt);
    let locId: number | undefined;
    let rec = found;
    if (!rec) {
      if (command.journey !== 'push')
        locId = (await client.createRecurrenceLocation().catch((err: unknown) => refusal(err))).id;
      rec = await client
        .createRecurrence(recBody(command, locId, firstPaymentTxid))
        .catch((err: unknown) => refusal(err));
    }
    await recordRecurrenceOpened(manager, command.subscription_id, {
      idRec: rec.idRec,
      status: rec.status,
      ...(rec.loc === undefined ? {} : { locId: rec.loc.id }),
      ...(firstPaymentTxid === undefined ? {} : { firstPaymentTxid }),
    });
    context.logger.info(
      {
        subscription_id: command.subscription_id,
        id_rec: rec.idRec,
        journey: command.journey,
        found: !!found,
      },
      'Pix Automático recurrence opened at the PSP',
    );
  } catch (err) {
    // A refusal is the same every time: the next delivery may ask again at once (and meets the same refusal).
    if (err instanceof CommandError && err.code !== 'SERVICE_UNAVAILABLE')
      await releaseRecurrenceClaim(manager, command.subscription_id);
    throw err;
  }
  return manager.findOneByOrFail(RecurrenceEntity, { subscriptionId: command.subscription_id });
}

/** Journey 3: the first cycle's immediate charge (a cob of `first_payment`, opened once per payment). */
async function openFirstPayment(
  deps: OpenRecurrenceDeps,
  command: OpenPixRecurrence,
  context: MessageContext,
): Promise<string | undefined> {
  if (command.first_payment === null) return undefined;
  const seconds = Math.floor((Date.parse(command.authorization_expires_at) - Date.now()) / 1000);
  const charge = await openCharge(
    deps,
    {
      payment_id: command.first_payment.payment_id,
      business_id: command.business_id,
      business_name: command.business_name,
      amount_centavos: command.first_payment.amount_centavos,
      expires_in_seconds: Math.max(60, seconds),
      debtor: command.debtor,
      ...(command.description === null ? {} : { description: command.description }),
    },
    context,
  );
  return charge.txid;
}

/** A recurrence this subscription's lost attempt made: the payer's created since then, whose contract is ours. */
async function findAtPsp(
  client: ApiPixClient,
  command: OpenPixRecurrence,
  since: Date,
): Promise<Rec | undefined> {
  const devedor = devedorOf(command.debtor);
  const document = 'cpf' in devedor ? { cpf: devedor.cpf } : { cnpj: devedor.cnpj };
  const recs = await client
    .listRecurrences(new Date(since.getTime() - 60_000), new Date(Date.now() + 60_000), document)
    .catch((err: unknown) => pspFailure(err));
  return recs.find((rec) => rec.vinculo.contrato === contractOf(command.subscription_id));
}

/** `RecSolicitada` from the command (API Pix 2.9.0). */
export function recBody(command: OpenPixRecurrence, locId?: number, txid?: string): CreateRecInput {
  return {
    vinculo: {
      contrato: contractOf(command.subscription_id),
      devedor: devedorOf(command.debtor),
      ...(command.description === null ? {} : { objeto: command.description.slice(0, VINCULO_MAX) }),
    },
    calendario: {
      dataInicial: command.start_date,
      ...(command.end_date === null ? {} : { dataFinal: command.end_date }),
      periodicidade: PERIODICIDADE[command.interval],
    },
    ...(command.amount_centavos !== null
      ? { valor: { valorRec: centavosToPixAmount(command.amount_centavos) } }
      : command.minimum_amount_centavos !== null
        ? { valor: { valorMinimoRecebedor: centavosToPixAmount(command.minimum_amount_centavos) } }
        : {}),
    politicaRetentativa: POLITICA_RETENTATIVA[command.retry_policy],
    ...(locId === undefined ? {} : { loc: locId }),
    ...(txid === undefined ? {} : { ativacao: { dadosJornada: { txid } } }),
  };
}

/** What the journey needs once the recurrence exists: the request to the payer's bank, or the QR code shown. */
async function completeJourney(
  deps: OpenRecurrenceDeps,
  client: ApiPixClient,
  command: OpenPixRecurrence,
  recurrence: RecurrenceEntity,
): Promise<PixRecurrence> {
  const idRec = recurrence.idRec!;
  const { manager } = deps.dataSource;
  if (recurrence.journey === 'push') {
    if (recurrence.idSolicRec === null && recurrence.pspStatus === 'CRIADA') {
      const rec = await client.getRecurrence(idRec).catch((err: unknown) => pspFailure(err));
      const asked = rec.solicitacao?.find((solicitacao) => solicitacao.status !== 'CANCELADA');
      const idSolicRec =
        asked?.idSolicRec ??
        (
          await client
            .requestRecurrenceAuthorization({
              idRec,
              calendario: { dataExpiracaoSolicitacao: command.authorization_expires_at },
              destinatario: destinatarioOf(command),
            })
            .catch((err: unknown) => refusal(err))
        ).idSolicRec;
      await recordRecurrenceOpened(manager, command.subscription_id, { idSolicRec });
    }
    return { recurrence_id: idRec, authorization: null, first_payment_txid: null };
  }
  let authorization = recurrence.authorizationShown;
  if (authorization === null) {
    const txid = recurrence.firstPaymentTxid ?? undefined;
    const rec = await client.getRecurrence(idRec, txid).catch((err: unknown) => pspFailure(err));
    if (rec.dadosQR === undefined)
      pspFailure(new PspError('unavailable', null, `recurrence ${idRec} has no QR code (dadosQR)`));
    authorization = {
      qr_code: qrPngDataUri(rec.dadosQR.pixCopiaECola),
      copia_e_cola: rec.dadosQR.pixCopiaECola,
      expires_at: recurrence.authorizationExpiresAt.toISOString(),
    } satisfies PixInstructions;
    await recordRecurrenceOpened(manager, command.subscription_id, { authorization });
  }
  return { recurrence_id: idRec, authorization, first_payment_txid: recurrence.firstPaymentTxid };
}

function destinatarioOf(command: OpenPixRecurrence): {
  conta: string;
  ispbParticipante: string;
  agencia?: string;
  cpf?: string;
  cnpj?: string;
} {
  const account = command.payer_account!;
  const devedor = devedorOf(command.debtor);
  return {
    conta: account.account,
    ispbParticipante: account.ispb,
    ...(account.branch === null ? {} : { agencia: account.branch }),
    ...('cpf' in devedor ? { cpf: devedor.cpf } : { cnpj: devedor.cnpj }),
  };
}

/** The command's field each part of a refused `rec` or `solicrec` names (API Pix's `violacoes[].propriedade`). */
const RECURRENCE_FIELDS: Array<[RegExp, string]> = [
  [/calendario\.dataInicial/, 'start_date'],
  [/calendario\.dataFinal/, 'end_date'],
  [/calendario\.periodicidade/, 'interval'],
  [/valor\.valorMinimoRecebedor/, 'minimum_amount_centavos'],
  [/valor/, 'amount_centavos'],
  [/vinculo\.devedor/, 'debtor'],
  [/vinculo\.objeto/, 'description'],
  [/politicaRetentativa/, 'retry_policy'],
  [/dataExpiracaoSolicitacao/, 'authorization_expires_at'],
  [/destinatario/, 'payer_account'],
];

/**
 * What a PSP's refusal tells the caller: 404 or 403 (a PSP without `/rec`, a token without its scopes) is
 * AUTOMATIC_PIX_NOT_SUPPORTED, never retried; a refusal naming a field is INVALID_FIELDS naming ours; the PSP's
 * unavailability is SERVICE_UNAVAILABLE (the caller retries); anything else as `pspFailure` says.
 */
export function refusal(error: unknown): never {
  if (error instanceof PspError && (error.status === 404 || error.status === 403))
    throw automaticPixNotSupported(
      `HTTP ${error.status}${error.status === 403 ? ', sem os escopos de Pix Automático' : ''}`,
    );
  if (error instanceof PspError && error.kind === 'invalid') {
    const named = (error.extra.violacoes ?? []).map((violation) => violation.propriedade ?? '');
    const fields = new Set<string>();
    for (const property of named) {
      const field = RECURRENCE_FIELDS.find(([pattern]) => pattern.test(property));
      if (field) fields.add(field[1]);
    }
    if (fields.size > 0)
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${[...fields].join(', ')}.`);
  }
  return pspFailure(error);
}
