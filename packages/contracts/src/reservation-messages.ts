import Joi from 'joi';
import { defineCommand } from './message';
import { amountCentavos, businessId, paymentId } from './common';
import { refundId } from './refund-messages';

/**
 * A refund reserves before it is created (docs/refunds.md#the-balance-first, ADR 0020): the payment service gives the
 * refund its id and asks the ledger to move the amount to the business's `reserved` balance under that id; only then
 * does it open the refund. The ledger refuses with INSUFFICIENT_BALANCE when available + pending does not cover it.
 */

/** The ledger reserves `amount_centavos` of the business's balance for the refund `reservation_id` of `payment_id`. */
export interface CreateReservation {
  /** The refund's id: a second request under it answers the first's outcome and moves nothing. */
  reservation_id: string;
  business_id: string;
  payment_id: string;
  amount_centavos: number;
}

/**
 * `reserved`: the amount is the business's `reserved` balance now (or was already, for this id).
 * `payment_not_posted`: the ledger has not posted the payment yet (its `payment.confirmed` is on its way); nothing
 * was reserved, the caller asks again shortly. `released`: a reservation under this id was released already (the
 * id is spent; the caller opens no refund under it).
 */
export const reservationOutcomes = ['reserved', 'payment_not_posted', 'released'] as const;
export type ReservationOutcome = (typeof reservationOutcomes)[number];

export interface ReservationReply {
  reservation_id: string;
  outcome: ReservationOutcome;
}
const reservationReplySchema = Joi.object<ReservationReply>({
  reservation_id: refundId.required(),
  outcome: Joi.valid(...reservationOutcomes).required(),
});

export const createReservation = defineCommand<CreateReservation, ReservationReply>(
  'ledger.reservation.create.v1',
  'ledger',
  Joi.object({
    reservation_id: refundId.required(),
    business_id: businessId.required(),
    payment_id: paymentId.required(),
    amount_centavos: amountCentavos.required(),
  }),
  reservationReplySchema,
  ['INSUFFICIENT_BALANCE'],
);

/** The payment service did not open the refund it reserved for: the money goes back where it came from, once. */
export interface ReleaseReservation {
  reservation_id: string;
}
export const releaseReservation = defineCommand<ReleaseReservation, { released: boolean }>(
  'ledger.reservation.release.v1',
  'ledger',
  Joi.object({ reservation_id: refundId.required() }),
  Joi.object({ released: Joi.boolean().required() }),
  [],
);

/**
 * The ledger's sweep asks about a reservation no refund outcome has confirmed: does the refund exist? A refund that
 * does not exist is made never to exist (its id is given up under the payment's lock), so the ledger may release its
 * reservation without a refund appearing afterwards.
 */
export interface CheckRefundReservation {
  refund_id: string;
  payment_id: string;
}
export const checkRefundReservation = defineCommand<CheckRefundReservation, { refund_exists: boolean }>(
  'refund.reservation.check.v1',
  'payment',
  Joi.object({ refund_id: refundId.required(), payment_id: paymentId.required() }),
  Joi.object({ refund_exists: Joi.boolean().required() }),
  [],
);
