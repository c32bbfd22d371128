import { Router } from 'express';
import Joi from 'joi';
import { createCustomer } from '@gateway/contracts';
import { asyncHandler } from '@gateway/http-errors';
import { identityOf } from '../http/identity';
import { jsonText, validateBody } from '../http/validation';
import type { RouteContext } from './context';

type Optional = string | null | undefined;

const text = Joi.string().max(2000).allow(null);
const createCustomerBody = Joi.object<{
  email: Optional;
  phone_number: Optional;
  document_number: Optional;
  metadata: Optional;
}>({
  email: text,
  phone_number: text,
  document_number: text,
  metadata: jsonText.allow(null),
});

/** /v1/customers; the customer's `ip` is the caller's (behind proxies, as `TRUST_PROXY` allows). */
export function customerRoutes({ commands }: RouteContext): Router {
  const router = Router();
  router.post(
    '/customers',
    asyncHandler(async (req, res) => {
      const body = validateBody(createCustomerBody, req.body);
      const customer = await commands.send(
        createCustomer,
        {
          business_id: identityOf(res).businessId,
          email: body.email ?? null,
          phone_number: body.phone_number ?? null,
          document_number: body.document_number ?? null,
          ip: req.ip ?? null,
          metadata: body.metadata ?? null,
        },
        res,
      );
      res.status(201).json(customer);
    }),
  );
  return router;
}
