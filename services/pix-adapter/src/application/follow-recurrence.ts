import type { DataSource } from 'typeorm';
import Joi from 'joi';
import {
  dateOfDay,
  pixChargeClosed,
  pixCycleAttemptFailed,
  pixRecurrenceChanged,
  saoPauloDay,
} from '@gateway/contracts';
import { PeriodicWorker, type UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import {
  cancellerOf,
  cycleWindowOver,
  isRecMove,
  nextRetryDay,
  outcomeOfRecStatus,
  reasonCode,
  retriesUsed,
} from '../domain/recurrence';

import { ChargeEntity, RecurrenceEntity, type RecStatus } from '../persistence';
import { endActiveCharge } from '../persistence/charge-store';
import { unpaidPixOf } from '../persistence/received-pix-store';
import {
  claimCyclesToCheck,
  claimRecurrencesToCheck,
  markAttemptsReported,
  moveRecurrenceStatus,
  touchCharge,
  touchRecurrence,
} from '../persistence/recurrence-store';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import { type Cobr, type Rec, type Tentativa, cobOfCobr } from '../clients/psp/rec';
import { PspError, isPspRefusal } from '../clients/psp/psp-error';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import { applyListedPix } from './shared/record-received-pix';
import { removeCancelledCharge } from './remove-cancelled-charge';

export interface FollowRecurrenceDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  /** The client of an account (null: the platform's), and the removal of a charge's cob. */
  psp: { forAccount(accountId: string | null): Promise<ApiPixClient> } & Pick<ChargePsp, 'removeCharge'>;
  logger: Logger;
  /** The sandbox reads a recurrence's today from its own clock at the PSP simulator; production is São Paulo's day. */
  appEnv?: 'sandbox' | 'production';
}

/**
 * The PSP's today for a recurrence: São Paulo's day, or in the sandbox the recurrence's own clock at the simulator
 * (`GET /sandbox/rec/{idRec}/relogio`), which is what the PSP judges a retry's day by there.
 */
async function pspToday(
  deps: FollowRecurrenceDeps,
  client: ApiPixClient,
  recurrence: RecurrenceEntity,
): Promise<string> {
  if (deps.appEnv === 'sandbox' && recurrence.idRec !== null)
    return client.sandboxRecurrenceToday(recurrence.idRec);
  return dateOfDay(saoPauloDay(new Date()));
}

const ignoredCallbackItems = counter(
  'pix_recurrence_callback_items_ignored_total',
  'Pix Automático callback items that changed nothing (malformed, unknown, or of another account), by kind',
  ['kind'],
);

/**
 * Applies what the PSP states of a recurrence (read at the PSP, never taken from a callback's word): a move of its
 * status is recorded and reported (pix.recurrence.changed.v1) in one transaction, once: a replay, a poll or a
 * concurrent reader finds it moved and reports nothing. A move API Pix does not make is logged and not applied.
 */
export async function followRecurrence(
  deps: FollowRecurrenceDeps,
  recurrence: RecurrenceEntity,
  rec: Rec,
): Promise<void> {
  const from = recurrence.pspStatus;
  const to = rec.status;
  if (from === null) return;
  if (from !== to && !(await moveRecurrence(deps, recurrence, rec, from))) return;
  // Journey 3: once the recurrence ended (cancelled, rejected, expired), its first payment's cob is removed at the
  // PSP as a cancelled payment's is, so the payer can no longer pay it (a Pix that still comes is late funds, as for
  // any cob). Only an active charge is touched: the payment's own cancellation, or a replay, removes nothing twice.
  if (ENDED_RECS.has(to) && recurrence.firstPaymentId !== null)
    await removeCancelledCharge(deps, recurrence.firstPaymentId, { logger: deps.logger });
}

const ENDED_RECS = new Set(['REJEITADA', 'CANCELADA', 'EXPIRADA']);

/** Records and reports a move of the recurrence's status; answers whether it is one API Pix makes. */
async function moveRecurrence(
  deps: FollowRecurrenceDeps,
  recurrence: RecurrenceEntity,
  rec: Rec,
  from: RecStatus,
): Promise<boolean> {
  const to = rec.status;
  const outcome = outcomeOfRecStatus(to);
  if (outcome === null || !isRecMove(from, to)) {
    deps.logger.warn(
      { subscription_id: recurrence.subscriptionId, id_rec: rec.idRec, from, to },
      'PSP stated a move of a recurrence that API Pix does not make: not applied',
    );
    return false;
  }
  const cancelledBy = to === 'CANCELADA' ? cancellerOf(rec.encerramento?.cancelamento?.solicitante) : null;
  const at = [...(rec.atualizacao ?? [])].reverse().find((entry) => entry.status === to)?.data;
  await deps.uow.run({}, async (tx) => {
    if (!(await moveRecurrenceStatus(tx.manager, recurrence.subscriptionId, from, to, cancelledBy))) return;
    await tx.emit(pixRecurrenceChanged, {
      subscription_id: recurrence.subscriptionId,
      recurrence_id: rec.idRec,
      outcome,
      cancelled_by: cancelledBy,
      reason_code: reasonCode(rec.encerramento?.rejeicao?.codigo ?? rec.encerramento?.cancelamento?.codigo),
      at: at === undefined ? new Date().toISOString() : new Date(at).toISOString(),
    });
  });
  deps.logger.info(
    { subscription_id: recurrence.subscriptionId, id_rec: rec.idRec, from, to },
    'Pix Automático recurrence changed',
  );
  return true;
}

const PENDING = new Set(['SOLICITADA', 'AGENDADA']);
const ENDED = new Set(['CANCELADA', 'REJEITADA', 'EXPIRADA']);

/** The day of the cycle's attempt still to come, if any. */
const pendingAttemptOn = (tentativas: Tentativa[]): string | null =>
  tentativas.find((tentativa) => PENDING.has(tentativa.status))?.dataLiquidacao ?? null;

/**
 * Applies what the PSP states of a cycle: its Pix (pix.charge.paid.v1, once per Pix, as for any charge), each failed
 * attempt once (pix.cycle.attempt-failed.v1), the retry asked for under PERMITE_3R_7D (`next_attempt_on`), and its end
 * once it can no longer be debited (pix.charge.closed.v1 `failed`, cause `debit_failed` after failed attempts). The
 * retry is asked for outside any transaction; a refusal reads the cycle back (a first attempt asked already).
 */
export async function followCycle(
  deps: FollowRecurrenceDeps,
  charge: ChargeEntity,
  read: Cobr,
): Promise<void> {
  const { dataSource, uow, logger } = deps;
  const recurrence = await dataSource.manager.findOneByOrFail(RecurrenceEntity, {
    subscriptionId: charge.subscriptionId!,
  });
  let cobr = read;
  const failedAt = (tentativas: Tentativa[]) =>
    tentativas.flatMap((tentativa, index) =>
      tentativa.status === 'REJEITADA' ? [{ tentativa, index }] : [],
    );
  let nextAttemptOn = pendingAttemptOn(cobr.tentativas ?? []);
  const failed = failedAt(cobr.tentativas ?? []);
  const last = failed.at(-1);
  let windowOver = false;
  let retryRefused = false;
  if (last !== undefined && cobr.status === 'ATIVA' && nextAttemptOn === null) {
    const client = await deps.psp.forAccount(charge.pspAccountId);
    const today = await pspToday(deps, client, recurrence);
    const dueDate = cobr.calendario.dataDeVencimento;
    const day = nextRetryDay(
      recurrence.retryPolicy,
      dueDate,
      last.tentativa.dataLiquidacao,
      today,
      retriesUsed(cobr.tentativas ?? []),
    );
    if (day !== null) {
      cobr = await client.retryCycle(charge.txid, day).catch(async (err: unknown) => {
        if (!isPspRefusal(err)) throw err;
        logger.warn(
          { txid: charge.txid, day, err: String(err) },
          'PSP refused the retry of a cycle: read back',
        );
        return client.getCycle(charge.txid);
      });
      nextAttemptOn = pendingAttemptOn(cobr.tentativas ?? []);
      retryRefused = nextAttemptOn === null;
    }
    windowOver = cycleWindowOver(dueDate, today);
  }
  const cob = cobOfCobr(cobr);
  const cancellation = cobr.encerramento?.cancelamento;
  // Ended by the PSP's own final status; a cycle still ATIVA with no attempt to come only once the window API Pix
  // allows has passed by the PSP's today (until then the PSP may still debit it).
  const ended = ENDED.has(cobr.status) || (cobr.status === 'ATIVA' && nextAttemptOn === null && windowOver);
  await uow.run({}, async (tx) => {
    await applyListedPix(tx, cob, 'callback', logger);
    const reported = charge.attemptsReported;
    // A retry the PSP refused (its day passed meanwhile) is asked again by the next reading, while the window allows:
    // the failure is reported then, with the day of its retry.
    const reportLater = retryRefused && !windowOver && !ENDED.has(cobr.status);
    if (
      !reportLater &&
      failed.length > reported &&
      (await markAttemptsReported(tx.manager, charge.txid, reported, failed.length))
    ) {
      for (const [n, { tentativa, index }] of failed.entries()) {
        if (n < reported) continue;
        await tx.emit(pixCycleAttemptFailed, {
          subscription_id: recurrence.subscriptionId,
          payment_id: charge.paymentId,
          txid: charge.txid,
          attempt: Math.min(index + 1, 4),
          reason_code: reasonCode(tentativa.rejeicao?.codigo),
          next_attempt_on: n === failed.length - 1 ? nextAttemptOn : null,
        });
      }
    }
    if (!ended || cobr.status === 'CONCLUIDA') return;
    if ((await endActiveCharge(tx.manager, charge.txid, 'failed')) === 0) return;
    // Cancelled (by the payer, or by its recurrence's end) is no failed debit: the payment is cancelled.
    const cause = cancellation !== undefined ? 'cycle_cancelled' : failed.length > 0 ? 'debit_failed' : null;
    await tx.emit(pixChargeClosed, {
      payment_id: charge.paymentId,
      txid: charge.txid,
      reason: 'failed',
      detail:
        cancellation === undefined
          ? `cobr ${cobr.status}`
          : `cobr CANCELADA por ${cancellation.solicitante ?? 'PSP'}${cancellation.codigo ? ` (${cancellation.codigo})` : ''}`,
      cause,
      received_pix: await unpaidPixOf(tx.manager, charge.txid),
    });
  });
}

const recItem = Joi.object({
  idRec: Joi.string()
    .pattern(/^[a-zA-Z0-9]{29}$/)
    .required(),
}).unknown(true);
const cobrItem = Joi.object({
  txid: Joi.string()
    .pattern(/^[a-zA-Z0-9]{26,35}$/)
    .required(),
}).unknown(true);

/** The well-formed items of a callback's list (`recs` or `cobsr`); each is only a trigger to read the PSP. */
function itemsOf<T>(body: unknown, list: 'recs' | 'cobsr', schema: Joi.ObjectSchema<T>): T[] {
  const items = (body as Record<string, unknown> | null)?.[list];
  if (!Array.isArray(items)) {
    ignoredCallbackItems.inc({ kind: `${list}_malformed` });
    return [];
  }
  return items.flatMap((item: unknown) => {
    const { error, value } = schema.validate(item, { convert: false });
    if (error) ignoredCallbackItems.inc({ kind: `${list}_malformed` });
    return error ? [] : [value];
  });
}

/**
 * The PSP's Pix Automático callbacks (`{webhookrec}/rec` with `recs`, `{webhookcobr}/cobr` with `cobsr`). An item is
 * only a trigger: the recurrence or cycle it names is re-read at the account it was opened at, and only one of ours
 * at the account the callback came to is followed; anything else changes nothing. A PSP failure propagates, so the
 * callback is answered 503 and sent again.
 */
export class RecurrenceCallbacks {
  constructor(private readonly deps: FollowRecurrenceDeps) {}

  async recs(body: unknown, accountId: string | null): Promise<number> {
    let followed = 0;
    for (const { idRec } of itemsOf<{ idRec: string }>(body, 'recs', recItem)) {
      const recurrence = await this.deps.dataSource.manager.findOneBy(RecurrenceEntity, { idRec });
      if (!recurrence || recurrence.pspAccountId !== accountId) {
        ignoredCallbackItems.inc({ kind: 'rec_unknown' });
        this.deps.logger.warn({ id_rec: idRec }, 'recurrence callback about no recurrence of this account');
        continue;
      }
      const client = await this.deps.psp.forAccount(accountId);
      await followRecurrence(this.deps, recurrence, await client.getRecurrence(idRec));
      followed += 1;
    }
    return followed;
  }

  async cobrs(body: unknown, accountId: string | null): Promise<number> {
    let followed = 0;
    for (const { txid } of itemsOf<{ txid: string }>(body, 'cobsr', cobrItem)) {
      const charge = await this.deps.dataSource.manager.findOneBy(ChargeEntity, { txid, kind: 'cobr' });
      if (!charge || charge.pspAccountId !== accountId) {
        ignoredCallbackItems.inc({ kind: 'cobr_unknown' });
        this.deps.logger.warn({ txid }, 'cycle callback about no cycle of this account');
        continue;
      }
      const client = await this.deps.psp.forAccount(accountId);
      await followCycle(this.deps, charge, await client.getCycle(txid));
      followed += 1;
    }
    return followed;
  }
}

export interface RecurrencePollOptions extends FollowRecurrenceDeps {
  /** How long a recurrence or an open cycle goes unchecked before the poll reads it at the PSP. */
  recheckSeconds: number;
  intervalMs: number;
  batchSize?: number;
}

/**
 * Callbacks can be lost: the poll reads at the PSP the recurrences still pending or active (`GET /rec/{idRec}`) and
 * the open cycles (`GET /cobr/{txid}`) not checked for a while, and follows them as their callbacks would have.
 */
export class RecurrencePoll extends PeriodicWorker {
  constructor(private readonly options: RecurrencePollOptions) {
    super({ name: 'pix-recurrence-poll', intervalMs: options.intervalMs, logger: options.logger });
  }

  protected override async pass(): Promise<void> {
    await this.pollOnce();
  }

  /** One round; answers how many recurrences and cycles were read. */
  async pollOnce(): Promise<number> {
    const { dataSource, recheckSeconds, logger } = this.options;
    const limit = this.options.batchSize ?? 20;
    const { manager } = dataSource;
    let read = 0;
    for (const subscriptionId of await claimRecurrencesToCheck(manager, recheckSeconds, limit)) {
      const recurrence = await manager.findOneByOrFail(RecurrenceEntity, { subscriptionId });
      try {
        const client = await this.options.psp.forAccount(recurrence.pspAccountId);
        await followRecurrence(this.options, recurrence, await client.getRecurrence(recurrence.idRec!));
        await touchRecurrence(manager, subscriptionId);
        read += 1;
      } catch (err) {
        logger.warn({ err: String(err), subscription_id: subscriptionId }, 'recurrence not checked now');
        if (err instanceof PspError && err.retryable) break;
      }
    }
    for (const txid of await claimCyclesToCheck(manager, recheckSeconds, limit)) {
      const charge = await manager.findOneByOrFail(ChargeEntity, { txid });
      try {
        const client = await this.options.psp.forAccount(charge.pspAccountId);
        await followCycle(this.options, charge, await client.getCycle(txid));
        await touchCharge(manager, txid);
        read += 1;
      } catch (err) {
        logger.warn({ err: String(err), txid }, 'cycle not checked now');
        if (err instanceof PspError && err.retryable) break;
      }
    }
    return read;
  }
}
