import { Router } from 'express';
import Joi from 'joi';
import {
  boundedText,
  createRefund,
  getRefund,
  listRefunds,
  publicRefundRecord,
  refundId,
  type RefundRecord,
} from '@gateway/contracts';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { ownResourcePayload } from '../commands';
import { identityOf } from '../identity';
import { amountField, pageQuery, readPage, validateBody } from '../validation';
import type { RouteContext } from './context';

export const createRefundBody = Joi.object<{ amount?: number | null; reason?: string | null }>({
  amount: amountField.allow(null),
  // An empty reason is no reason.
  reason: boundedText('reason').allow(null, ''),
});

export const refundsPage = pageQuery(refundId);

/** Never show another business's refund, whatever the payment service answers. */
function ownRefund(refund: RefundRecord, businessId: string): RefundRecord {
  if (refund.business_id !== businessId) throw new AppError('NOT_FOUND');
  return refund;
}

/** /v1/payments/{id}/refunds and /v1/refunds/{id} (docs/refunds.md). */
export function refundRoutes({ commands }: RouteContext): Router {
  const router = Router();
  const paymentOf = ownResourcePayload('payment_id', 'pay');
  const refundOf = ownResourcePayload('refund_id', 'ref');

  router.post(
    '/payments/:payment_id/refunds',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      // The path id before the body: a refund of a payment that cannot exist is NOT_FOUND whatever the body says.
      const payment = paymentOf(req, businessId);
      const body = validateBody(createRefundBody, req.body, { amount: ['amount'] });
      const refund = await commands.send(
        createRefund,
        {
          ...payment,
          amount_centavos: body.amount ?? null,
          reason: body.reason || null,
        },
        res,
      );
      res.status(201).json(publicRefundRecord(ownRefund(refund, businessId)));
    }),
  );

  // A payment's refunds, newest first, a page at a time.
  router.get(
    '/payments/:payment_id/refunds',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const page = await commands.send(
        listRefunds,
        { ...paymentOf(req, businessId), ...readPage(refundsPage, req.query) },
        res,
      );
      res.json({
        data: page.data.map((refund) => publicRefundRecord(ownRefund(refund, businessId))),
        has_more: page.has_more,
      });
    }),
  );

  router.get(
    '/refunds/:refund_id',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const refund = await commands.send(getRefund, refundOf(req, businessId), res);
      res.json(publicRefundRecord(ownRefund(refund, businessId)));
    }),
  );

  return router;
}
