import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import Joi from 'joi';
import {
  cancelPayment,
  getCheckoutPage,
  getCheckoutSessionStatus,
  getPayment,
  hasCheckoutSlugShape,
  hasPublicIdShape,
  startCheckoutSession,
  tokens,
  type CheckoutSessionStatus,
  type PaymentMethod,
  type PaymentView,
  type Token,
} from '@gateway/contracts';
import { AppError, asyncHandler, errorMiddleware, toAppError } from '@gateway/http-errors';
import type { Logger } from '@gateway/observability';
import {
  CHECKOUT_CONTENT_SECURITY_POLICY,
  checkoutAssets,
  renderCheckoutPage,
  renderErrorMessage,
  renderNotFoundPage,
  renderUnavailablePage,
  type CheckoutAssetName,
} from '../checkout-page';
import { findBusiness } from '../../persistence';
import { publicCrypto } from '../payment-responses';
import { isDependencyFailure } from '../dependency-failure';
import { jsonBody } from '../input-bounds';
import { validateBody } from '../validation';
import type { RouteContext } from './context';

const ASSET_BASE = '/c/assets';
/** `/{slug}`: the HTML page (the other routes answer JSON). */
const PAGE_PATH = /^\/[^/]+\/?$/;

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CHECKOUT_CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  next();
};

const sendNotFoundPage = (res: Response) =>
  res.status(404).type('html').set('Cache-Control', 'no-store').send(renderNotFoundPage(ASSET_BASE));

/** `/c/{slug}` (one segment): a page, whose every not-found is the HTML page, never JSON. */
const isPagePath = (req: Request) => ['GET', 'HEAD'].includes(req.method) && PAGE_PATH.test(req.path);

const tokenNames = [...tokens, ...tokens.map((token) => token.toUpperCase())];
/** `currency` is required for `crypto`: a condition on the object, so the OpenAPI document states it as if/then. */
export const startSessionBody = Joi.object<{ method: PaymentMethod; currency?: string }>({
  method: Joi.string().valid('pix', 'crypto').required(),
  currency: Joi.any(),
}).when(Joi.object({ method: Joi.valid('crypto').required() }).unknown(), {
  then: Joi.object({
    currency: Joi.string()
      .valid(...tokenNames)
      .required(),
  }),
});

/** What `checkout.js` reads from a started session (see assets/checkout.js). */
function sessionPayment(view: PaymentView): Record<string, unknown> {
  const { payment } = view;
  if (view.pix) {
    return {
      method: payment.method,
      expires_at: view.pix.expires_at,
      pix: { qr_code: view.pix.qr_code, copia_e_cola: view.pix.copia_e_cola },
    };
  }
  if (view.crypto) {
    const crypto = publicCrypto(view.crypto);
    return {
      method: payment.method,
      expires_at: crypto.expires_at,
      crypto: {
        qr_code: crypto.qr_code,
        payment_link: crypto.payment_link,
        amount: crypto.amount,
        currency: crypto.currency,
        wallet_address: crypto.wallet_address,
      },
    };
  }
  throw new Error(`session payment ${payment.payment_id} came back without rail details`);
}

/**
 * The hosted checkout at /c/{slug}: public (no API key), rate limited per buyer IP, every response under a strict
 * CSP. The page's JSON endpoints answer errors with buyer-facing Portuguese text.
 */
export function hostedCheckoutRoutes(
  { commands, identity, config }: RouteContext,
  ipRateLimit: RequestHandler,
  logger: Logger,
): Router {
  const router = Router();
  router.use(securityHeaders);

  router.get('/assets/:name', (req, res, next) => {
    const name = req.params.name as CheckoutAssetName;
    if (!Object.prototype.hasOwnProperty.call(checkoutAssets, name)) return next(new AppError('NOT_FOUND'));
    const asset = checkoutAssets[name];
    // The page links `?v=<content hash>`: that exact version never changes, so it may be cached for good.
    const immutable = req.query.v === asset.version;
    res
      .status(200)
      .type(asset.contentType)
      .set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
      .send(asset.body);
  });

  router.use(ipRateLimit);

  const businessName = async (businessId: string, fallback: string): Promise<string> =>
    (await findBusiness(identity.dataSource.manager, businessId))?.name ?? fallback;

  router.get(
    '/:slug',
    asyncHandler(async (req, res) => {
      const slug = req.params.slug;
      const notFound = () => sendNotFoundPage(res);
      if (!hasCheckoutSlugShape(slug)) return notFound();
      let page;
      try {
        page = await commands.send(getCheckoutPage, { slug }, res);
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return notFound();
        throw err;
      }
      const html = renderCheckoutPage({
        slug: page.slug,
        businessName: await businessName(page.business_id, page.business_name),
        productName: page.product_name,
        productDescription: page.product_description,
        title: page.title,
        priceCentavos: page.price_centavos,
        cancelUrl: page.cancel_url,
        rails: { pix: true, crypto: ['USDC', 'USDT', 'EURC'] },
        assetBase: ASSET_BASE,
        sandbox: config.APP_ENV !== 'production',
      });
      res.status(200).type('html').set('Cache-Control', 'no-store').send(html);
    }),
  );

  router.post(
    '/:slug/sessions',
    jsonBody(),
    asyncHandler(async (req, res) => {
      const slug = req.params.slug;
      if (!hasCheckoutSlugShape(slug)) throw new AppError('NOT_FOUND');
      const body = validateBody(startSessionBody, req.body, { paymentMethod: 'method' });
      const page = await commands.send(getCheckoutPage, { slug }, res);
      const session = await commands.send(
        startCheckoutSession,
        {
          slug,
          business_name: await businessName(page.business_id, page.business_name),
          method: body.method,
          token: body.method === 'crypto' ? ((body.currency ?? '').toLowerCase() as Token) : null,
        },
        res,
      );
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json({
          session_id: session.session_id,
          status: session.status,
          payment: sessionPayment(session.payment as PaymentView),
        });
    }),
  );

  const sessionOf = (req: Request, res: Response): Promise<CheckoutSessionStatus> => {
    const { slug, session_id: sessionId } = req.params;
    if (!hasCheckoutSlugShape(slug) || !hasPublicIdShape('sess', sessionId)) throw new AppError('NOT_FOUND');
    return commands.send(getCheckoutSessionStatus, { slug, session_id: sessionId }, res);
  };
  /** What the page reads of a session: never its payment's or business's id. */
  const sendSessionStatus = (
    res: Response,
    status: CheckoutSessionStatus['status'],
    returnUrl: string | null,
  ) => res.set('Cache-Control', 'no-store').json({ status, return_url: returnUrl });

  /**
   * Cancels the session's open payment by the API's own cancel (`payment.cancel.v1`, its rules and effects: the PIX cob
   * removed at the PSP, the crypto request closed); answers the status the session's payment ended in. A cancel that
   * lost to a confirmation (INVALID_STATUS) reads the payment: `paid`, never a second attempt over a paid one.
   */
  const cancelSessionPayment = async (
    session: CheckoutSessionStatus,
    res: Response,
  ): Promise<CheckoutSessionStatus['status']> => {
    const ids = { business_id: session.business_id, payment_id: session.payment_id };
    try {
      await commands.send(cancelPayment, ids, res);
      return 'cancelled';
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'INVALID_STATUS')) throw err;
      const { status } = (await commands.send(getPayment, ids, res)).payment;
      return status === 'pending' || status === 'processing' ? 'initiated' : status;
    }
  };

  router.get(
    '/:slug/sessions/:session_id',
    asyncHandler(async (req, res) => {
      const session = await sessionOf(req, res);
      sendSessionStatus(res, session.status, session.return_url);
    }),
  );

  // The buyer's way back to the method choice: the payment they leave is cancelled first, so the QR code or link they
  // may already have scanned can no longer be paid next to the new attempt. The page offers the choice only on an
  // ended status; on `paid` it shows the payment paid (its return url follows on the next poll when the session has
  // not seen the confirmation yet).
  router.post(
    '/:slug/sessions/:session_id/cancel',
    asyncHandler(async (req, res) => {
      const session = await sessionOf(req, res);
      if (session.status !== 'initiated') return sendSessionStatus(res, session.status, session.return_url);
      sendSessionStatus(res, await cancelSessionPayment(session, res), null);
    }),
  );

  // A slug express cannot even decode (`/c/%ZZ`, `/c/x%`) fails before the page route runs: still the page's 404.
  router.use(((err, req, res, next) => {
    if (!isPagePath(req) || res.headersSent || toAppError(err).error.code !== 'NOT_FOUND') return next(err);
    sendNotFoundPage(res);
  }) as ErrorRequestHandler);

  // A buyer opening the page while a dependency is down (the rate limit's Redis too) gets a page saying to try again.
  const pageUnavailable: ErrorRequestHandler = (err, req, res, next) => {
    const { error } = toAppError(err, isDependencyFailure);
    if (error.status !== 503 || req.method !== 'GET' || !PAGE_PATH.test(req.path) || res.headersSent)
      return next(err);
    logger.warn({ err, path: req.path }, 'checkout page unavailable');
    res
      .status(503)
      .type('html')
      .set({ ...error.headers, 'Cache-Control': 'no-store' })
      .send(renderUnavailablePage(ASSET_BASE));
  };
  router.use(pageUnavailable);
  router.use(
    errorMiddleware(logger, {
      message: (error) => renderErrorMessage(error.code),
      isTransient: isDependencyFailure,
    }),
  );
  return router;
}
