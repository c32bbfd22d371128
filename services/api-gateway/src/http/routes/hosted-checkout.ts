import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import Joi from 'joi';
import {
  CHECKOUT_SLUG_PATTERN,
  MAX_CHECKOUT_SLUG_LENGTH,
  MIN_CHECKOUT_SLUG_LENGTH,
  cancelPayment,
  getCheckoutPage,
  getCheckoutSessionStatus,
  getPayment,
  hasCheckoutSlugShape,
  startCheckoutSession,
  tokens,
  type CheckoutSessionStatus,
  type PaymentView,
  type Token,
  isoDate,
  boundedText,
  sessionId,
  paymentMethods,
  checkoutSessionStatuses,
} from '@gateway/contracts';
import { AppError, errorMiddleware, missingFields, toAppError } from '@gateway/http-errors';
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
import type { IdentityDeps } from '../../application/authenticate-api-key';
import type { PathScope } from '../mount';
import {
  defineOperation,
  json,
  type AnswerOf,
  type OperationInput,
  type OperationSpec,
  type Tag,
} from '../operation';
import { pixCode, cryptoInstructions } from '../openapi/response-schemas';
import { keepPaymentCopy } from '../../application/keep-payment-copy';
import { outdatePaymentCopy } from '../../application/outdate-payment-copy';
import type { PaymentCopies } from '../../application/shared/payment-copies';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const checkoutSessionStarted = Joi.object({
  session_id: sessionId.required(),
  subscription_id: Joi.string().description(
    "A recurring product's session: the subscription it started (its first cycle is `payment`).",
  ),
  status: startCheckoutSession.resultSchema.extract('status'),
  payment: Joi.object({
    method: Joi.string()
      .valid(...paymentMethods)
      .required(),
    expires_at: isoDate.required(),
    pix: pixCode,
    crypto: Joi.object({
      qr_code: Joi.string().required(),
      payment_link: Joi.string().required(),
      amount: Joi.number().required(),
      currency: cryptoInstructions.extract('currency'),
      wallet_address: Joi.string().required(),
    }),
  }).required(),
}).id('CheckoutSessionStarted');

const checkoutSessionStatus = Joi.object({
  status: Joi.valid(...checkoutSessionStatuses).required(),
  return_url: Joi.string()
    .allow(null)
    .required()
    .description('Where to send the buyer, once `paid`; null before.'),
}).id('CheckoutSessionStatus');

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
export const startSessionBody = Joi.object({
  method: Joi.string().valid('pix', 'crypto').required(),
  currency: Joi.any(),
  name: boundedText('name').description(
    "A recurring product's subscriber: the buyer's name (required there).",
  ),
  document: Joi.string()
    .max(20)
    .description(
      "A recurring product's subscriber: the buyer's CPF, check digits verified (required there).",
    ),
}).when(Joi.object({ method: Joi.valid('crypto').required() }).unknown(), {
  then: Joi.object({
    currency: Joi.string()
      .valid(...tokenNames)
      .required(),
  }),
});

/** A recurring product's buyer, who subscribes: both fields are required (the customer service validates them). */
function subscriber(body: { name?: string; document?: string }) {
  const missing = (['name', 'document'] as const).filter((field) => !body[field]);
  if (missing.length > 0) throw missingFields([...missing]);
  return { name: body.name!, document: body.document! };
}

/** What `checkout.js` reads from a started session (see assets/checkout.js). */
function sessionPayment(view: PaymentView): AnswerOf<'startCheckoutSession'>['payment'] {
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

const slug = Joi.string()
  .min(MIN_CHECKOUT_SLUG_LENGTH)
  .max(MAX_CHECKOUT_SLUG_LENGTH)
  .pattern(CHECKOUT_SLUG_PATTERN)
  .description('A malformed slug is not found.');

/** The business's current name, or the one the checkout carries. */
const businessName = async (identity: IdentityDeps, businessId: string, fallback: string): Promise<string> =>
  (await findBusiness(identity.dataSource.manager, businessId))?.name ?? fallback;

/** What the page reads of a session: never its payment's or business's id. */
function sessionStatus(res: Response, status: CheckoutSessionStatus['status'], returnUrl: string | null) {
  res.set('Cache-Control', 'no-store');
  return { status, return_url: returnUrl };
}

/**
 * Cancels the session's open payment by the API's own cancel (`payment.cancel.v1`, its rules and effects: the PIX cob
 * removed at the PSP, the crypto request closed); answers the status the session's payment ended in. A cancel that
 * lost to a confirmation (INVALID_STATUS) reads the payment: `paid`, never a second attempt over a paid one.
 */
async function cancelSessionPayment(
  session: CheckoutSessionStatus,
  send: OperationInput<never, unknown, unknown>['send'],
  paymentCopies: PaymentCopies,
): Promise<CheckoutSessionStatus['status']> {
  const ids = { business_id: session.business_id, payment_id: session.payment_id };
  try {
    // As the API's own cancel: the merchant's next read of the payment sees it (docs/adr/0042).
    await outdatePaymentCopy(paymentCopies, session.business_id, session.payment_id);
    await keepPaymentCopy(paymentCopies, await send(cancelPayment, ids));
    return 'cancelled';
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'INVALID_STATUS')) throw err;
    const { status } = (await send(getPayment, ids)).payment;
    return status === 'pending' || status === 'processing' ? 'initiated' : status;
  }
}

/** The document's group of this family's operations. */
export const hostedCheckoutTag: Tag = {
  name: 'Hosted checkout',
  description: 'The public checkout page buyers open, and the calls it makes.',
};

/** The page and its files: not JSON, each served by its entry. */
export const checkoutPageOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/c/assets/{name}',
    operationId: 'getCheckoutAsset',
    tag: 'Hosted checkout',
    area: 'public',
    summary: "The hosted page's stylesheet, script and icon",
    params: { name: Joi.string().valid(...Object.keys(checkoutAssets)) },
    // Past the query's NUL check (app.ts), before the page's rate limit.
    errors: ['NOT_FOUND', 'INVALID_FIELDS'],
    answers: [
      { status: 200, description: 'The file.', mediaTypes: ['text/css', 'text/javascript', 'image/svg+xml'] },
    ],
    serve: (req, res) => {
      const name = req.params.name as CheckoutAssetName;
      if (!Object.prototype.hasOwnProperty.call(checkoutAssets, name)) throw new AppError('NOT_FOUND');
      const asset = checkoutAssets[name];
      // The page links `?v=<content hash>`: that exact version never changes, so it may be cached for good.
      const immutable = req.query.v === asset.version;
      res
        .status(200)
        .type(asset.contentType)
        .set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
        .send(asset.body);
    },
  },
  {
    method: 'get',
    path: '/c/{slug}',
    operationId: 'getCheckoutPage',
    tag: 'Hosted checkout',
    area: 'checkout-page',
    summary: 'The hosted checkout page a buyer opens',
    description: 'Server-rendered, in Portuguese; the buyer picks PIX or a stablecoin and pays.',
    params: { slug },
    answers: [
      { status: 200, description: 'The page.', mediaTypes: ['text/html'] },
      { status: 404, description: 'The not-found page.', mediaTypes: ['text/html'] },
      { status: 503, description: 'The try-again page (with `Retry-After`).', mediaTypes: ['text/html'] },
    ],
    serve: async (req, res, { commands, identity, config }) => {
      const slug = req.params.slug!;
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
        businessName: await businessName(identity, page.business_id, page.business_name),
        productName: page.product_name,
        productDescription: page.product_description,
        title: page.title,
        priceCentavos: page.price_centavos,
        interval: page.interval ?? null,
        cancelUrl: page.cancel_url,
        // A subscription is paid by Pix Automático only.
        rails: { pix: true, crypto: page.interval ? [] : ['USDC', 'USDT', 'EURC'] },
        assetBase: ASSET_BASE,
        sandbox: config.APP_ENV !== 'production',
      });
      res.status(200).type('html').set('Cache-Control', 'no-store').send(html);
    },
  },
];

/** The page's JSON calls, mounted from their entries. */
export const checkoutSessionOperations = [
  defineOperation({
    method: 'post',
    path: '/c/{slug}/sessions',
    operationId: 'startCheckoutSession',
    tag: 'Hosted checkout',
    area: 'checkout',
    summary: "Start a payment on the hosted page (the page's own call)",
    body: {
      name: 'StartCheckoutSessionRequest',
      schema: startSessionBody,
      codes: { paymentMethod: 'method' },
      examples: {
        pix: { summary: 'PIX', value: { method: 'pix' } },
        subscription: {
          summary: "A recurring product's subscription",
          value: { method: 'pix', name: 'Maria Silva', document: '529.982.247-25' },
        },
        usdc: { summary: 'USDC on Solana', value: { method: 'crypto', currency: 'USDC' } },
      },
    },
    params: { slug },
    commands: [getCheckoutPage, startCheckoutSession],
    errors: ['UNSUPPORTED_PAYMENT_METHOD'],
    answers: [json(201, 'The session and what the buyer needs to pay.', checkoutSessionStarted)],
    handle: async ({ params, body, res, send }, { identity }) => {
      const page = await send(getCheckoutPage, { slug: params.slug });
      const session = await send(startCheckoutSession, {
        slug: params.slug,
        business_name: await businessName(identity, page.business_id, page.business_name),
        method: body.method,
        token: body.method === 'crypto' ? ((body.currency ?? '').toLowerCase() as Token) : null,
        buyer: page.interval ? subscriber(body) : null,
      });
      res.set('Cache-Control', 'no-store');
      return {
        session_id: session.session_id,
        ...(session.subscription_id ? { subscription_id: session.subscription_id } : {}),
        status: session.status,
        payment: sessionPayment(session.payment as PaymentView),
      };
    },
  }),
  defineOperation({
    method: 'get',
    path: '/c/{slug}/sessions/{session_id}',
    operationId: 'getCheckoutSessionStatus',
    tag: 'Hosted checkout',
    area: 'checkout',
    summary: "A session's status (the page polls it)",
    params: { slug, session_id: 'sess' },
    commands: [getCheckoutSessionStatus],
    answers: [json(200, 'The status, and where to send the buyer once paid.', checkoutSessionStatus)],
    handle: async ({ params, res, send }) => {
      const session = await send(getCheckoutSessionStatus, params);
      return sessionStatus(res, session.status, session.return_url);
    },
  }),
  // The buyer's way back to the method choice: the payment they leave is cancelled first, so the QR code or link they
  // may already have scanned can no longer be paid next to the new attempt. The page offers the choice only on an
  // ended status; on `paid` it shows the payment paid (its return url follows on the next poll when the session has
  // not seen the confirmation yet).
  defineOperation({
    method: 'post',
    path: '/c/{slug}/sessions/{session_id}/cancel',
    operationId: 'cancelCheckoutSession',
    tag: 'Hosted checkout',
    area: 'checkout',
    summary: "Cancel the session's open payment, going back to the method choice (the page's own call)",
    description:
      "Cancels the session's payment as `POST /v1/payments/{payment_id}/cancel` does (the PIX cob removed at the PSP, " +
      'the crypto request closed), so it can no longer be paid next to a new attempt. A session already ended answers ' +
      'its status unchanged; a payment paid before the cancel answers `paid`, and the page shows it paid.',
    params: { slug, session_id: 'sess' },
    commands: [getCheckoutSessionStatus, cancelPayment, getPayment],
    answers: [json(200, 'The status the payment ended in.', checkoutSessionStatus)],
    handle: async ({ params, res, send }, { paymentCopies }) => {
      const session = await send(getCheckoutSessionStatus, params);
      if (session.status !== 'initiated') return sessionStatus(res, session.status, session.return_url);
      return sessionStatus(res, await cancelSessionPayment(session, send, paymentCopies), null);
    },
  }),
];

export const hostedCheckoutOperations = [...checkoutPageOperations, ...checkoutSessionOperations];

/**
 * The hosted checkout at /c: public (no API key), every answer under a strict CSP; its routes' errors answer with
 * buyer-facing Portuguese text, and the page's not-found and try-again answers are HTML pages.
 */
export function hostedCheckoutScope(logger: Logger): PathScope {
  // A slug express cannot even decode (`/c/%ZZ`, `/c/x%`) fails before the page route runs: still the page's 404.
  const pageNotFound: ErrorRequestHandler = (err, req, res, next) => {
    if (!isPagePath(req) || res.headersSent || toAppError(err).error.code !== 'NOT_FOUND') return next(err);
    sendNotFoundPage(res);
  };
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
  return {
    prefix: '/c',
    before: [securityHeaders],
    after: [
      pageNotFound,
      pageUnavailable,
      errorMiddleware(logger, {
        message: (error) => renderErrorMessage(error.code),
        isTransient: isDependencyFailure,
      }),
    ],
  };
}
