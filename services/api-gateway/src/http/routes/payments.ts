import { Router } from 'express';
import Joi from 'joi';
import {
  cancelPayment,
  createPayment,
  customerId,
  getCustomer,
  getPayment,
  isoDate,
  listPayments,
  listReceivedFunds,
  paymentId,
  paymentMethods,
  paymentStatuses,
  publicPaymentRecord,
  receivedFundsId,
  returnReceivedFunds,
  simulatePayment,
  tokens,
  updatePayment,
  type ListPayments,
  type PaymentMethod,
  type Token,
  type UpdatePayment,
} from '@gateway/contracts';
import { AppError, asyncHandler } from '@gateway/http-errors';
import {
  paymentCreatedResponse,
  paymentDetailsResponse,
  paymentUpdatedResponse,
  receivedFundsResponse,
} from '../payment-responses';
import { commandRoute, ownResourcePayload } from '../commands';
import { identityOf } from '../identity';
import { amountField, jsonText, pageQuery, readPage, validateBody, validateQuery } from '../validation';
import type { RouteContext } from './context';

interface CreatePaymentBody {
  payment_method: PaymentMethod;
  amount: number;
  currency?: string;
  metadata?: string | null;
  crypto?: { currency: string; network: 'solana' };
  customer_id?: string | null;
}

const tokenNames = [...tokens, ...tokens.map((token) => token.toUpperCase())];

// The route schemas are exported for the OpenAPI document (src/http/openapi), which is converted from them.

/**
 * `crypto` is required when `payment_method` is `crypto`: a condition on the object (not on the field), so that the
 * document can state it as JSON Schema's if/then.
 */
export const createPaymentBody = Joi.object<CreatePaymentBody>({
  payment_method: Joi.string().valid('pix', 'crypto').required(),
  amount: amountField.required(),
  currency: Joi.string().valid('BRL', 'brl'),
  metadata: jsonText.allow(null),
  customer_id: customerId.allow(null),
  crypto: Joi.any(),
}).when(Joi.object({ payment_method: Joi.valid('crypto').required() }).unknown(), {
  then: Joi.object({
    crypto: Joi.object({
      currency: Joi.string()
        .valid(...tokenNames)
        .required(),
      network: Joi.string().valid('solana').required(),
    }).required(),
  }),
});

/** At least one of the two (MISSING_FIELDS naming both otherwise). */
export const updatePaymentBody = Joi.object<{ amount?: number; metadata?: string | null }>({
  amount: amountField,
  metadata: jsonText.allow(null),
}).or('amount', 'metadata');

export const simulateBody = Joi.object<{ outcome: 'paid' | 'failed' | 'expired'; amount?: number | null }>({
  outcome: Joi.string().valid('paid', 'failed', 'expired').required(),
  amount: amountField.allow(null),
});

/** A page of payments and the filters of docs/api.md#lists-and-pagination. */
export const paymentsPage = (pageQuery(paymentId) as Joi.ObjectSchema).keys({
  status: Joi.string().valid(...paymentStatuses),
  method: Joi.string().valid(...paymentMethods),
  created_gte: isoDate,
  created_lt: isoDate,
}) as Joi.ObjectSchema<
  Omit<ListPayments, 'business_id' | 'starting_after'> & { limit: number; starting_after?: string }
>;

export const receivedFundsPage = pageQuery(receivedFundsId);

/** /v1/payments, /v1/payments/{id}/received-funds (and, outside production, /v1/sandbox/payments/{id}/simulate). */
export function paymentRoutes({ commands, config }: RouteContext): Router {
  const router = Router();
  const paymentOf = ownResourcePayload('payment_id', 'pay');
  const fundsOf = ownResourcePayload('funds_id', 'fund');

  router.post(
    '/payments',
    asyncHandler(async (req, res) => {
      const body = validateBody(createPaymentBody, req.body, {
        paymentMethod: 'payment_method',
        amount: ['amount'],
      });
      const identity = identityOf(res);
      // The customer must be the business's own: another business's (or none) is NOT_FOUND, before anything is made.
      if (body.customer_id)
        await commands.send(
          getCustomer,
          { business_id: identity.businessId, customer_id: body.customer_id },
          res,
        );
      const view = await commands.send(
        createPayment,
        {
          business_id: identity.businessId,
          business_name: identity.businessName,
          method: body.payment_method,
          amount_centavos: body.amount,
          metadata: body.metadata ?? null,
          token: body.crypto ? (body.crypto.currency.toLowerCase() as Token) : null,
          customer_id: body.customer_id ?? null,
        },
        res,
      );
      res.status(201).json(paymentCreatedResponse(view));
    }),
  );

  // The business's payments, newest first, a page at a time (docs/api.md#lists-and-pagination).
  router.get(
    '/payments',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      // Only the filters given are in the checked query (unknown parameters are dropped).
      const query = validateQuery(paymentsPage, req.query);
      const page = await commands.send(
        listPayments,
        { ...query, business_id: businessId, starting_after: query.starting_after ?? null },
        res,
      );
      // Never list another business's payment, whatever the payment service answers.
      if (page.data.some((payment) => payment.business_id !== businessId))
        throw new AppError('INTERNAL_ERROR');
      res.json({ data: page.data.map(publicPaymentRecord), has_more: page.has_more });
    }),
  );

  router.get(
    '/payments/:payment_id',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const view = await commands.send(getPayment, paymentOf(req, businessId), res);
      // Never leak another business's payment, whatever the payment service answers.
      if (view.payment.business_id !== businessId) throw new AppError('NOT_FOUND');
      res.json(paymentDetailsResponse(view));
    }),
  );

  // Late, excess, partial or unmatched money kept for the payment (newest first, a page at a time): what the
  // merchant reconciles by hand.
  router.get(
    '/payments/:payment_id/received-funds',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const funds = await commands.send(
        listReceivedFunds,
        { ...paymentOf(req, businessId), ...readPage(receivedFundsPage, req.query) },
        res,
      );
      res.json({ data: funds.data.map(receivedFundsResponse), has_more: funds.has_more });
    }),
  );

  // Records kept money as returned to the payer outside the gateway (no body), so no refund returns it again; money a
  // refund returns or returned is INVALID_STATUS.
  router.post(
    '/payments/:payment_id/received-funds/:funds_id/return',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const funds = await commands.send(
        returnReceivedFunds,
        { ...paymentOf(req, businessId), funds_id: fundsOf(req, businessId).funds_id },
        res,
      );
      res.json(receivedFundsResponse(funds));
    }),
  );

  router.patch(
    '/payments/:payment_id',
    asyncHandler(async (req, res) => {
      const body = validateBody(updatePaymentBody, req.body, { amount: ['amount'] });
      const { businessId } = identityOf(res);
      const command: UpdatePayment = paymentOf(req, businessId);
      if (body.amount !== undefined) command.amount_centavos = body.amount;
      if (body.metadata !== undefined) command.metadata = body.metadata;
      const view = await commands.send(updatePayment, command, res);
      if (view.payment.business_id !== businessId) throw new AppError('NOT_FOUND');
      res.json(paymentUpdatedResponse(view, body.amount !== undefined));
    }),
  );

  // Cancels an open payment: the PIX cob is removed, the crypto request closed (docs/refunds.md).
  router.post(
    '/payments/:payment_id/cancel',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const view = await commands.send(cancelPayment, paymentOf(req, businessId), res);
      if (view.payment.business_id !== businessId) throw new AppError('NOT_FOUND');
      res.json(publicPaymentRecord(view.payment));
    }),
  );

  if (config.APP_ENV !== 'production') {
    router.post(
      '/sandbox/payments/:payment_id/simulate',
      commandRoute(
        commands,
        simulatePayment,
        (req, businessId) => {
          const body = validateBody(simulateBody, req.body, { amount: ['amount'] });
          return {
            ...paymentOf(req, businessId),
            outcome: body.outcome,
            amount_centavos: body.amount ?? null,
          };
        },
        { status: 202 },
      ),
    );
  }

  return router;
}
