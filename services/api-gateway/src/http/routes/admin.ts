import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import {
  PAGE_LIMIT_MAX,
  boundedText,
  businessName,
  centavosToBrl,
  createProduct,
  feePercentBps,
  listAllReceivedFunds,
  paymentMethods,
  productName,
  receivedFundsId,
  receivedFundsKinds,
  receivedFundsStatuses,
  setFeeRule,
  type PaymentMethod,
} from '@gateway/contracts';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { BrokerUnavailableError, consumerQueueNames, type ParkedQueue } from '@gateway/messaging';
import { createBusiness } from '../../application/create-business';
import { issueApiKey } from '../../application/issue-api-key';
import { revokeApiKey } from '../../application/revoke-api-key';
import { findBusiness, listApiKeysOf, type BusinessEntity } from '../../persistence';
import { hasKeyPrefixShape } from '../../domain/api-key';
import { jsonBody } from '../input-bounds';
import { receivedFundsResponse } from '../payment-responses';
import {
  amountField,
  centavosField,
  pageQuery,
  pathId,
  readPage,
  validateBody,
  validateQuery,
} from '../validation';
import type { RouteContext } from './context';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time (as digests, so lengths leak nothing either). */
function requireAdmin(adminToken: string): RequestHandler {
  const expected = sha256(adminToken);
  return (req, _res, next) => {
    const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
    const presented = match ? sha256(match[1]!) : undefined;
    if (presented && timingSafeEqual(presented, expected)) return next();
    // The catalog's UNAUTHORIZED text speaks of an API key; an operator presents the admin token.
    next(new AppError('UNAUTHORIZED', 'Token de operador ausente ou inválido.'));
  };
}

export const businessBody = Joi.object<{ name: string }>({ name: businessName.required() });
export const feeRuleBody = Joi.object<{ percent_bps: number; fixed_centavos: number }>({
  percent_bps: feePercentBps.required(),
  fixed_centavos: centavosField.min(0).required(),
});
export const redriveBody = Joi.object<{ queue?: string }>({
  queue: Joi.string().valid(...consumerQueueNames),
});
export const productBody = Joi.object<{ name: string; price: number; description?: string | null }>({
  name: productName.required(),
  price: amountField.required(),
  description: boundedText('description').allow(null),
});

export const allReceivedFundsPage = pageQuery(receivedFundsId);
export const allReceivedFundsFilter = Joi.object<{
  kind?: (typeof receivedFundsKinds)[number];
  status?: (typeof receivedFundsStatuses)[number];
}>({
  kind: Joi.string().valid(...receivedFundsKinds),
  status: Joi.string().valid(...receivedFundsStatuses),
});

/** The operator API (docs/api.md#operator-api-and-cli); `scripts/admin-cli.ts` wraps it. */
export function adminRoutes({ commands, broker, identity, config }: RouteContext): Router {
  const router = Router();
  router.use(requireAdmin(config.ADMIN_TOKEN), jsonBody());

  const existingBusiness = async (id: string | undefined): Promise<BusinessEntity> => {
    const business = await findBusiness(identity.dataSource.manager, pathId('biz', id));
    if (!business) throw new AppError('NOT_FOUND');
    return business;
  };

  router.post(
    '/businesses',
    asyncHandler(async (req, res) => {
      const body = validateBody(businessBody, req.body);
      const created = await createBusiness(identity, body.name);
      res.status(201).json({
        business_id: created.business.id,
        name: created.business.name,
        environment: created.business.environment,
        api_key: created.apiKey,
        key_prefix: created.keyPrefix,
        created_at: created.business.createdAt.toISOString(),
      });
    }),
  );

  router.get(
    '/businesses/:business_id',
    asyncHandler(async (req, res) => {
      const business = await existingBusiness(req.params.business_id);
      const { keys, hasMore } = await listApiKeysOf(identity.dataSource.manager, business.id, PAGE_LIMIT_MAX);
      res.json({
        business_id: business.id,
        name: business.name,
        environment: business.environment,
        created_at: business.createdAt.toISOString(),
        api_keys: keys.map((key) => ({
          key_prefix: key.keyPrefix,
          created_at: key.createdAt.toISOString(),
          revoked_at: key.revokedAt?.toISOString() ?? null,
        })),
        api_keys_has_more: hasMore,
      });
    }),
  );

  router.post(
    '/businesses/:business_id/api-keys',
    asyncHandler(async (req, res) => {
      const business = await existingBusiness(req.params.business_id);
      const issued = await issueApiKey(identity, business.id);
      res
        .status(201)
        .json({ business_id: business.id, api_key: issued.apiKey, key_prefix: issued.keyPrefix });
    }),
  );

  router.delete(
    '/api-keys/:key_prefix',
    asyncHandler(async (req, res) => {
      const keyPrefix = req.params.key_prefix;
      if (!hasKeyPrefixShape(keyPrefix) || !(await revokeApiKey(identity, keyPrefix)))
        throw new AppError('NOT_FOUND');
      res.json({ revoked: true });
    }),
  );

  router.put(
    '/businesses/:business_id/fee-rules/:method',
    asyncHandler(async (req, res) => {
      const method = req.params.method as PaymentMethod;
      if (!paymentMethods.includes(method)) throw new AppError('UNSUPPORTED_PAYMENT_METHOD');
      const body = validateBody(feeRuleBody, req.body);
      const business = await existingBusiness(req.params.business_id);
      const rule = await commands.send(setFeeRule, { business_id: business.id, method, ...body }, res);
      res.json(rule);
    }),
  );

  router.post(
    '/businesses/:business_id/products',
    asyncHandler(async (req, res) => {
      const body = validateBody(productBody, req.body, { amount: ['price'] });
      const business = await existingBusiness(req.params.business_id);
      const product = await commands.send(
        createProduct,
        {
          business_id: business.id,
          name: body.name,
          description: body.description ?? null,
          price_centavos: body.price,
        },
        res,
      );
      res.status(201).json({
        product_id: product.product_id,
        business_id: product.business_id,
        name: product.name,
        description: product.description,
        price: centavosToBrl(product.price_centavos),
        price_centavos: product.price_centavos,
        created_at: product.created_at,
      });
    }),
  );

  // Money kept outside the happy path across every business, newest first: `?kind=unreadable&status=held` is what the
  // watcher has not been able to read yet (the SolanaTransactionsUnread alert's list).
  router.get(
    '/received-funds',
    asyncHandler(async (req, res) => {
      const filter = validateQuery(allReceivedFundsFilter, req.query);
      const funds = await commands.send(
        listAllReceivedFunds,
        { ...filter, ...readPage(allReceivedFundsPage, req.query) },
        res,
      );
      res.json({
        data: funds.data.map((item) => ({
          ...receivedFundsResponse(item),
          payment_id: item.payment_id,
          business_id: item.business_id,
          amount_base_units: item.amount_base_units,
        })),
        has_more: funds.has_more,
      });
    }),
  );

  /** The broker's answer; while it is unreachable, SERVICE_UNAVAILABLE. */
  const fromBroker = async (work: () => Promise<ParkedQueue[]>): Promise<ParkedQueue[]> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof BrokerUnavailableError) throw new AppError('SERVICE_UNAVAILABLE');
      throw err;
    }
  };

  router.get(
    '/parked',
    asyncHandler(async (_req, res) => {
      const queues = await fromBroker(() => broker.listParked());
      res.json({ queues, total_parked: queues.reduce((sum, queue) => sum + queue.parked, 0) });
    }),
  );

  router.post(
    '/parked/redrive',
    asyncHandler(async (req, res) => {
      const body = validateBody(redriveBody, req.body);
      const moved = await fromBroker(() => broker.redriveParked(body.queue));
      res.json({
        queues: moved.map(({ queue, parked }) => ({ queue, redriven: parked })),
        total_redriven: moved.reduce((sum, queue) => sum + queue.parked, 0),
      });
    }),
  );

  return router;
}
