import type { DataSource } from 'typeorm';
import { pixPayoutSettled } from '@gateway/contracts';
import type { MessageOrigin, Transaction, UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { payoutRetryDelaySeconds, unmadePayoutReason } from '../../domain/payout-outcome';
import { PayoutEntity, type ReportedSendFailure } from '../../persistence';
import { lockOpenPayout } from '../../persistence/payout-store';
import { sendDifferences, type PixPayoutPort, type SentPix } from '../../clients/psp/envio';

export interface PayoutDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  port: PixPayoutPort;
  /** The platform account's own Pix key, which pays (Efí `pagador.chave`). */
  payerKey: string;
  logger: Logger;
  /** A send the PSP holds is read again this long after the last look, until it ends (its callback may be lost). */
  overdueSeconds: number;
  /** After a send that did not go through, the next attempt waits this long, doubling up to `retryMaxSeconds`. */
  retryFirstSeconds: number;
  retryMaxSeconds: number;
}

/**
 * Why a payout waits for its next attempt: the PSP could not be reached or answered 5xx/429 (`unavailable`), refused
 * the adapter's credentials (`unauthorized`), says the platform's payer key is not set up to send (`payer_misconfigured`),
 * holds another send under its idEnvio (`conflict`), or does not know a send it had taken (`unknown_at_psp`). Only
 * `unavailable` may pass by itself; the others need an operator, and the payout waits for one rather than failing.
 */
export type PayoutHeldReason =
  'unavailable' | 'unauthorized' | 'payer_misconfigured' | 'conflict' | 'unknown_at_psp';

const payoutsSettled = counter('pix_payouts_settled_total', 'PIX payouts settled, by outcome', ['outcome']);
const payoutsHeld = counter(
  'pix_payout_attempts_held_total',
  'Payout attempts that did not go through and wait for the next one, by reason (all but unavailable need an operator)',
  ['reason'],
);

/** Settlements carry the payout request's correlation id, whether its handler, a callback or the poll settles it. */
export function originOf(payout: Pick<PayoutEntity, 'correlationId'>): MessageOrigin {
  return { correlationId: payout.correlationId };
}

export interface PayoutSettlement {
  outcome: 'paid' | 'failed';
  endToEndId: string | null;
  failureReason: string | null;
  settledAt: Date;
}

/**
 * Ends a payout and emits pix.payout.settled.v1 in the same transaction, once: the row is locked and only one still
 * open is settled (the database also refuses any change of a final one).
 */
export async function settlePayout(
  tx: Transaction,
  payoutId: string,
  settlement: PayoutSettlement,
  logger: Logger,
): Promise<boolean> {
  const payout = await lockOpenPayout(tx.manager, payoutId);
  if (!payout) return false;
  await tx.manager.update(
    PayoutEntity,
    { payoutId },
    {
      status: settlement.outcome,
      endToEndId: settlement.endToEndId ?? payout.endToEndId,
      failureReason: settlement.failureReason,
      settledAt: settlement.settledAt,
      heldReason: null,
      claimedUntil: null,
      updatedAt: new Date(),
    },
  );
  await tx.emit(pixPayoutSettled, {
    payout_id: payoutId,
    outcome: settlement.outcome,
    end_to_end_id: settlement.endToEndId ?? payout.endToEndId,
    failure_reason: settlement.failureReason,
    settled_at: settlement.settledAt.toISOString(),
  });
  tx.afterCommit(() => payoutsSettled.inc({ outcome: settlement.outcome }));
  logger.info(
    {
      payout_id: payoutId,
      business_id: payout.businessId,
      outcome: settlement.outcome,
      failure_reason: settlement.failureReason,
    },
    'PIX payout settled',
  );
  return true;
}

/**
 * Applies what the PSP says of a payout's send: EM_PROCESSAMENTO marks it processing (read again after
 * `overdueSeconds` unless its callback comes first); REALIZADO settles it paid with the PIX's endToEndId, NAO_REALIZADO
 * failed with the reason the PSP's callback told.
 */
export async function applySentPix(
  tx: Transaction,
  deps: Pick<PayoutDeps, 'logger' | 'overdueSeconds'>,
  payoutId: string,
  sent: SentPix,
): Promise<void> {
  if (sent.status === 'EM_PROCESSAMENTO') {
    const payout = await lockOpenPayout(tx.manager, payoutId);
    if (!payout) return;
    await tx.manager.update(
      PayoutEntity,
      { payoutId },
      {
        status: 'processing',
        endToEndId: sent.endToEndId,
        heldReason: null,
        claimedUntil: null,
        nextAttemptAt: new Date(Date.now() + deps.overdueSeconds * 1000),
        updatedAt: new Date(),
      },
    );
    return;
  }
  if (sent.status === 'REALIZADO') {
    await settlePayout(
      tx,
      payoutId,
      {
        outcome: 'paid',
        endToEndId: sent.endToEndId,
        failureReason: null,
        settledAt: sent.settledAt === undefined ? new Date() : new Date(sent.settledAt),
      },
      deps.logger,
    );
    return;
  }
  // Efí's reads do not tell why a send was not made: the reason is the one this read carries, else the one a callback
  // told and the payout kept (a send settled by the poll, after a restart too).
  const payout = await lockOpenPayout(tx.manager, payoutId);
  if (!payout) return;
  await settlePayout(
    tx,
    payoutId,
    {
      outcome: 'failed',
      endToEndId: sent.endToEndId,
      failureReason: unmadePayoutReason(sent.failure ?? payout.reportedFailure ?? undefined),
      settledAt: new Date(),
    },
    deps.logger,
  );
}

/**
 * Keeps the failure a PSP callback told of an open payout's send (Efí's reads do not repeat it), so that whichever path
 * settles the payout, now or after a restart, fails it with the PSP's reason. The callback is no proof: only a read
 * that finds the send not made settles the payout failed.
 */
export async function rememberReportedFailure(
  tx: Transaction,
  payoutId: string,
  failure: ReportedSendFailure,
): Promise<void> {
  const payout = await lockOpenPayout(tx.manager, payoutId);
  if (!payout) return;
  await tx.manager.update(
    PayoutEntity,
    { payoutId },
    {
      reportedFailure: {
        code: failure.code.slice(0, MAX_FAILURE_PART),
        origin: failure.origin.slice(0, MAX_FAILURE_PART),
        reason: failure.reason.slice(0, MAX_FAILURE_REASON),
      },
      updatedAt: new Date(),
    },
  );
}

/** How much of a reported failure's code and origin, and of its reason, a payout keeps. */
const MAX_FAILURE_PART = 100;
const MAX_FAILURE_REASON = 1000;

/**
 * Leaves an open payout for its next attempt, later each time (`retryFirstSeconds` doubling up to `retryMaxSeconds`),
 * with why it waits: logged (an error when an operator must act) and counted, never failed.
 */
export async function holdPayout(
  deps: PayoutDeps,
  payout: PayoutEntity,
  reason: PayoutHeldReason,
  detail: string,
): Promise<void> {
  const attempts = await deps.uow.run(originOf(payout), async (tx) => {
    const open = await lockOpenPayout(tx.manager, payout.payoutId);
    if (!open) return undefined;
    const count = open.attempts + 1;
    const delay = payoutRetryDelaySeconds(count, deps.retryFirstSeconds, deps.retryMaxSeconds);
    await tx.manager.update(
      PayoutEntity,
      { payoutId: payout.payoutId },
      {
        attempts: count,
        heldReason: reason,
        claimedUntil: null,
        nextAttemptAt: new Date(Date.now() + delay * 1000),
        updatedAt: new Date(),
      },
    );
    return { count, delay };
  });
  if (attempts === undefined) return;
  payoutsHeld.inc({ reason });
  const fields = {
    payout_id: payout.payoutId,
    reason,
    detail,
    attempts: attempts.count,
    retryInSeconds: attempts.delay,
  };
  if (reason === 'unavailable') deps.logger.warn(fields, 'PIX payout not sent now, will be tried again');
  else deps.logger.error(fields, 'PIX payout held: an operator must act before it can be sent');
}

/**
 * Re-reads the payout's send at the PSP (`GET /v2/gn/pix/enviados/id-envio/{idEnvio}`) and applies what it says now.
 * Answers false when the PSP has no send under its idEnvio (nothing is changed then).
 */
export async function followPayout(deps: PayoutDeps, payout: PayoutEntity): Promise<boolean> {
  const sent = await deps.port.readSentPix(payout.idEnvio);
  if (sent === undefined) return false;
  // Another send under the payout's idEnvio (another amount or key) says nothing of this payout: held for review.
  const differences = sendDifferences({ amountCentavos: payout.amountCentavos, pixKey: payout.pixKey }, sent);
  if (differences !== undefined) {
    await holdPayout(
      deps,
      payout,
      'conflict',
      `the PSP holds another send under idEnvio ${payout.idEnvio}: ${differences}`,
    );
    return true;
  }
  await deps.uow.run(originOf(payout), (tx) => applySentPix(tx, deps, payout.payoutId, sent));
  return true;
}
