import { Router } from 'express';
import Joi from 'joi';
import { boundedText, createCustomer, customerId, getCustomer, listCustomers } from '@gateway/contracts';
import { commandRoute, ownResourcePayload } from '../commands';
import { jsonText, pageQuery, readPage, validateBody } from '../validation';
import type { RouteContext } from './context';

type Optional = string | null | undefined;

export const createCustomerBody = Joi.object<{
  email: Optional;
  phone_number: Optional;
  document_number: Optional;
  metadata: Optional;
}>({
  email: boundedText('email').allow(null),
  phone_number: boundedText('phone_number').allow(null),
  document_number: boundedText('document_number').allow(null),
  metadata: jsonText.allow(null),
});

export const customersPage = pageQuery(customerId);

/** /v1/customers; the customer's `ip` is the caller's (behind proxies, as `TRUST_PROXY` allows). */
export function customerRoutes({ commands }: RouteContext): Router {
  const router = Router();
  router.post(
    '/customers',
    commandRoute(
      commands,
      createCustomer,
      (req, businessId) => {
        const body = validateBody(createCustomerBody, req.body);
        return {
          business_id: businessId,
          email: body.email ?? null,
          phone_number: body.phone_number ?? null,
          document_number: body.document_number ?? null,
          ip: req.ip ?? null,
          metadata: body.metadata ?? null,
        };
      },
      { status: 201 },
    ),
  );
  // The business's customers, newest first, a page at a time (docs/api.md#lists-and-pagination).
  router.get(
    '/customers',
    commandRoute(commands, listCustomers, (req, businessId) => {
      return { business_id: businessId, ...readPage(customersPage, req.query) };
    }),
  );
  router.get(
    '/customers/:customer_id',
    commandRoute(commands, getCustomer, ownResourcePayload('customer_id', 'cust')),
  );
  return router;
}
