import type { DataSource } from 'typeorm';
import {
  AUTHORIZATION_WINDOW_DAYS,
  CYCLE_SEND_WINDOW_DAYS,
  dayNumber,
  saoPauloMidnight,
  type CreateSubscription,
  type SubscriptionRecord,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { Rails } from '../clients';
import {
  cyclePaymentId,
  firstScheduledCycle,
  subscriptionIdFor,
  toSubscriptionRecord,
} from '../domain/subscription';
import { findSubscription, insertSubscription } from '../persistence';
import { businessFeeRule, noFeeRule, type DefaultFees } from './shared/fee-rules';
import { emitSubscriptionEvent, wallToday } from './shared/subscription-events';
import { insertCyclePayment } from './shared/subscription-cycles';

export interface StartSubscriptionDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  defaultFees: DefaultFees;
  /** How long journey 3's QR code (an immediate charge that pays cycle 1) stays payable. */
  pixExpiresInSeconds: number;
  /** The sandbox gives each subscription a clock of its own. */
  appEnv: 'sandbox' | 'production';
}

const DAY_MS = 86_400_000;

/**
 * Opens the recurrence at the PSP first (`pix.recurrence.open.v1`), outside any transaction, then inserts the
 * subscription (and, for `qr_with_first_payment`, cycle 1's payment, paid by the authorizing QR code) with
 * `subscription.created` in one short transaction. The subscription's id derives from the command's message id, and
 * the adapter's message id from that too, so a redelivered or retried create reaches the same recurrence and inserts
 * nothing twice; a replay the inbox forgot is IDEMPOTENCY_CONFLICT, as for payments.
 */
export async function startSubscription(
  deps: StartSubscriptionDeps,
  command: CreateSubscription,
  context: MessageContext,
): Promise<SubscriptionRecord> {
  const subscriptionId = subscriptionIdFor(context.envelope.id);
  const existing = await findSubscription(deps.dataSource.manager, subscriptionId);
  const feeRule = await businessFeeRule(
    deps.dataSource.manager,
    deps.defaultFees,
    command.business_id,
    'pix',
  );
  if (!feeRule) throw noFeeRule('pix');
  const firstPayment =
    command.journey === 'qr_with_first_payment'
      ? { payment_id: cyclePaymentId(subscriptionId, 1), amount_centavos: fixedAmountOf(command) }
      : null;
  const opened = existing
    ? null
    : await deps.rails.recurrences.open(
        {
          subscription_id: subscriptionId,
          business_id: command.business_id,
          business_name: command.business_name,
          debtor: command.debtor,
          amount_centavos: command.amount_centavos,
          minimum_amount_centavos: command.minimum_amount_centavos,
          interval: command.interval,
          start_date: command.start_date,
          end_date: command.end_date,
          description: command.description,
          retry_policy: command.retry_policy,
          journey: command.journey,
          payer_account: command.payer_account,
          first_payment: firstPayment,
          authorization_expires_at: authorizationExpiry(command, deps.pixExpiresInSeconds).toISOString(),
        },
        context,
      );
  return deps.uow.once(context, async (tx) => {
    if (!opened) throw alreadyCreated(subscriptionId);
    const now = new Date();
    const today = wallToday();
    const next = firstScheduledCycle({
      startDate: command.start_date,
      interval: command.interval,
      endDate: command.end_date,
      journey: command.journey,
    });
    const subscription = await insertSubscription(tx.manager, {
      id: subscriptionId,
      businessId: command.business_id,
      businessName: command.business_name,
      customerId: command.customer_id,
      debtorName: command.debtor.name,
      debtorDocument: command.debtor.document,
      status: 'pending_authorization',
      amountCentavos: command.amount_centavos,
      minimumAmountCentavos: command.minimum_amount_centavos,
      interval: command.interval,
      startDate: command.start_date,
      endDate: command.end_date,
      description: command.description,
      retryPolicy: command.retry_policy,
      journey: command.journey,
      payerAccount: command.payer_account,
      metadata: command.metadata,
      recurrenceId: opened.recurrence_id,
      authorization: opened.authorization,
      firstPaymentId: firstPayment?.payment_id ?? null,
      nextCycle: next?.cycle ?? null,
      nextDueDate: next?.dueDate ?? null,
      nextCycleAmountCentavos: null,
      clockDate: deps.appEnv === 'sandbox' ? today : null,
      clockTarget: null,
      clockLeaseUntil: null,
      clockLeaseOwner: null,
      cycleOpenFailures: 0,
      cycleOpenRetryAt: null,
      failNextCycle: false,
      payerAnswerAskedAt: null,
      cancelledBy: null,
      cancellationReason: null,
      pspReasonCode: null,
      endedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    if (!subscription) throw alreadyCreated(subscriptionId);
    if (firstPayment) {
      const payment = await insertCyclePayment(tx, subscription, 1, {
        externalId: opened.first_payment_txid ?? opened.recurrence_id,
        instructions: opened.authorization,
        feeRule,
      });
      if (!payment) throw new Error(`cycle 1 of ${subscriptionId} exists before its subscription`);
    }
    await emitSubscriptionEvent(tx, 'created', subscription);
    context.logger.info(
      { subscription_id: subscriptionId, journey: command.journey },
      'subscription created',
    );
    return toSubscriptionRecord(subscription, today);
  });
}

/** Journey 3 pays cycle 1 at once: its amount is the fixed one (the gateway refuses the journey without it). */
function fixedAmountOf(command: CreateSubscription): number {
  if (command.amount_centavos === null) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: amount.');
  return command.amount_centavos;
}

/**
 * Until when the payer may authorize: journey 3's QR code is an immediate charge, payable as long as any; the others
 * a week at most, and never past the first cycle's last send day (BCB: 2 days before its due date), midnight in São
 * Paulo, so an authorization never arrives too late for the first cycle.
 */
function authorizationExpiry(command: CreateSubscription, pixExpiresInSeconds: number): Date {
  const now = Date.now();
  if (command.journey === 'qr_with_first_payment') return new Date(now + pixExpiresInSeconds * 1000);
  const lastSendDay = saoPauloMidnight(dayNumber(command.start_date)! - CYCLE_SEND_WINDOW_DAYS.latest);
  return new Date(Math.min(now + AUTHORIZATION_WINDOW_DAYS * DAY_MS, lastSendDay.getTime()));
}

function alreadyCreated(subscriptionId: string): CommandError {
  return new CommandError(
    'IDEMPOTENCY_CONFLICT',
    `Esta requisição de criação já foi processada e criou a assinatura ${subscriptionId}.`,
  );
}
