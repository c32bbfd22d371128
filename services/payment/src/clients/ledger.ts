import { setTimeout as delay } from 'node:timers/promises';
import {
  createReservation,
  releaseReservation,
  type CreateReservation,
  type ReservationOutcome,
} from '@gateway/contracts';
import { CommandError, type Broker, type MessageContext } from '@gateway/messaging';
import { counter } from '@gateway/observability';

export interface LedgerOptions {
  /** How long one call waits for the ledger's answer (less when the caller's deadline is earlier). */
  timeoutMs: number;
  /** How long a refund waits, asking again, for the ledger to post a payment it has not posted yet. */
  postingWaitMs: number;
}

const notPostedYet = counter(
  'payment_refund_reservations_waiting_total',
  'Refund reservations the ledger answered payment_not_posted (asked again shortly), by what came of the wait',
  ['outcome'],
);

/** The first pause before asking again, doubled up to the longest. */
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 400;

/** What is left of the caller's time when the payment service stops waiting, for opening the refund itself. */
const TIME_KEPT_FOR_OPENING_MS = 500;

/**
 * The ledger's reservations, as the payment service asks for them (docs/refunds.md#the-balance-first): a refund
 * reserves its amount before it is opened, and gives it back if it is then not opened.
 */
export class LedgerReservations {
  constructor(
    private readonly broker: Broker,
    private readonly options: LedgerOptions,
  ) {}

  /**
   * Reserves, and answers `reserved` or `released` (the id was given back already); refuses INSUFFICIENT_BALANCE as
   * the ledger does. The ledger posts a paid payment asynchronously: while it answers `payment_not_posted` (a refund
   * asked for right after the payment was paid), it is asked again after a short pause, doubling, for at most
   * `postingWaitMs` and never past the caller's deadline; then SERVICE_UNAVAILABLE (the client tries again).
   */
  async reserve(
    request: CreateReservation,
    context: Pick<MessageContext, 'envelope'>,
  ): Promise<Exclude<ReservationOutcome, 'payment_not_posted'>> {
    const deadline = context.envelope.deadline ? Date.parse(context.envelope.deadline) : Infinity;
    const giveUpAt = Math.min(Date.now() + this.options.postingWaitMs, deadline - TIME_KEPT_FOR_OPENING_MS);
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      const { outcome } = await this.broker.call(createReservation, request, {
        timeoutMs: this.options.timeoutMs,
        within: context,
      });
      if (outcome !== 'payment_not_posted') return outcome;
      if (Date.now() + pause >= giveUpAt) {
        notPostedYet.inc({ outcome: 'gave_up' });
        throw new CommandError(
          'SERVICE_UNAVAILABLE',
          'O pagamento ainda está sendo registrado no saldo. Tente novamente em instantes.',
        );
      }
      notPostedYet.inc({ outcome: 'asked_again' });
      await delay(pause);
    }
  }

  /** Gives a reservation back (its refund was not opened); a failure is left to the ledger's sweep. */
  async release(reservationId: string, context: Pick<MessageContext, 'envelope'>): Promise<void> {
    await this.broker.call(
      releaseReservation,
      { reservation_id: reservationId },
      // Not within the caller's deadline: the money goes back even when the caller has given up.
      { timeoutMs: this.options.timeoutMs, correlationId: context.envelope.correlation_id },
    );
  }
}
