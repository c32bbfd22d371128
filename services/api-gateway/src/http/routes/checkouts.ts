import { Router } from 'express';
import Joi from 'joi';
import {
  boundedText,
  checkoutId,
  createCheckout,
  getCheckout,
  givenId,
  listCheckouts,
  listCheckoutSessions,
  sessionId,
  type Checkout,
  type CreateCheckoutParams,
  type PublicCheckout,
} from '@gateway/contracts';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { identityOf } from '../identity';
import { commandRoute, ownResourcePayload } from '../commands';
import { jsonText, pageQuery, readPage, validateBody } from '../validation';
import type { RouteContext } from './context';

const httpUrl = boundedText('url').uri({ scheme: ['http', 'https'] });

export const createCheckoutBody = Joi.object<CreateCheckoutParams>({
  product_id: givenId.required(),
  return_url: httpUrl.required(),
  cancel_url: httpUrl.required(),
  title: boundedText('title').allow(null),
  slug: boundedText('slug').allow(null),
  metadata: jsonText.allow(null),
});

export const checkoutsPage = pageQuery(checkoutId);
export const sessionsPage = pageQuery(sessionId);

/** /v1/checkouts. Records also carry `url`, where the hosted page is shared (additive to API 1.0.0). */
export function checkoutRoutes({ commands, config }: RouteContext): Router {
  const router = Router();
  const withUrl = (checkout: Checkout): PublicCheckout => ({
    ...checkout,
    url: `${config.PUBLIC_BASE_URL}/c/${encodeURIComponent(checkout.slug)}`,
  });
  const checkoutOf = ownResourcePayload('checkout_id', 'chk');

  router.post(
    '/checkouts',
    asyncHandler(async (req, res) => {
      const body = validateBody(createCheckoutBody, req.body);
      const { businessId } = identityOf(res);
      const checkout = await commands.send(
        createCheckout,
        {
          business_id: businessId,
          product_id: body.product_id,
          return_url: body.return_url,
          cancel_url: body.cancel_url,
          title: body.title ?? null,
          slug: body.slug ?? null,
          metadata: body.metadata ?? null,
        },
        res,
      );
      res.status(201).json(withUrl(checkout));
    }),
  );

  // The business's checkouts, newest first, a page at a time (docs/api.md#lists-and-pagination), without their sessions.
  router.get(
    '/checkouts',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const page = await commands.send(
        listCheckouts,
        { business_id: businessId, ...readPage(checkoutsPage, req.query) },
        res,
      );
      if (page.data.some((checkout) => checkout.business_id !== businessId))
        throw new AppError('INTERNAL_ERROR');
      res.json({ data: page.data.map(withUrl), has_more: page.has_more });
    }),
  );

  router.get(
    '/checkouts/:checkout_id',
    asyncHandler(async (req, res) => {
      const { businessId } = identityOf(res);
      const checkout = await commands.send(getCheckout, checkoutOf(req, businessId), res);
      if (checkout.business_id !== businessId) throw new AppError('NOT_FOUND');
      res.json({
        ...withUrl(checkout),
        sessions: checkout.sessions ?? [],
        sessions_has_more: checkout.sessions_has_more ?? false,
      });
    }),
  );

  // Additive: every session of a checkout, a page at a time (the read above embeds only the newest).
  router.get(
    '/checkouts/:checkout_id/sessions',
    commandRoute(commands, listCheckoutSessions, (req, businessId) => ({
      ...checkoutOf(req, businessId),
      ...readPage(sessionsPage, req.query),
    })),
  );

  return router;
}
