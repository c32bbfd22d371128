import Joi from 'joi';
import {
  boundedText,
  createCustomer,
  customerId,
  getCustomer,
  listCustomers,
  pageSchema,
} from '@gateway/contracts';
import { defineOperation, json, only, pageOf, type Tag } from '../operation';
import { jsonText, pageQuery } from '../validation';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const customer = getCustomer.resultSchema.id('Customer');

export const createCustomerBody = Joi.object({
  name: boundedText('name').allow(null),
  email: boundedText('email').allow(null),
  phone_number: boundedText('phone_number').allow(null),
  document_number: boundedText('document_number').allow(null),
  metadata: jsonText.allow(null),
});

export const customersPage = pageQuery(customerId);
export const customersFilter = Joi.object({
  email: boundedText('email').description(
    'Only the customers with this e-mail address, compared as customers are stored (trimmed, its domain in lower case).',
  ),
});

/** The document's group of this family's operations. */
export const customersTag: Tag = { name: 'Customers', description: "The business's customers." };

/** /v1/customers; the customer's `ip` is the caller's (behind proxies, as `TRUST_PROXY` allows). */
export const customerOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/customers',
    operationId: 'createCustomer',
    tag: 'Customers',
    area: 'api',
    scope: 'customers:write',
    summary: 'Register a customer',
    description:
      'Every field is optional; `name` is the person or company (with a valid `document_number`, the debtor ' +
      "a PIX charge of this customer names, which the payer's bank shows), `email` is validated, `phone_number` " +
      'normalised to E.164, `document_number` must be a CPF or CNPJ with valid check digits; `ip` is the ' +
      "caller's.",
    body: {
      name: 'CreateCustomerRequest',
      schema: createCustomerBody,
      examples: only('Every field', {
        name: 'Maria Souza',
        email: 'maria@example.com',
        phone_number: '+55 11 91234-5678',
        document_number: '529.982.247-25',
        metadata: '{"vip":true}',
      }),
    },
    commands: [createCustomer],
    cli: {
      command: 'customers create',
      description: 'register a customer',
      fields: {
        phone_number: { flag: 'phone' },
        document_number: { flag: 'document', value: 'cpf_or_cnpj' },
        metadata: { value: 'json' },
      },
    },
    sdk: { method: 'customers.create', optionalBody: false },
    answers: [json(201, 'The customer.', customer)],
    handle: ({ body, businessId, req, send }) =>
      send(createCustomer, {
        business_id: businessId,
        name: body.name ?? null,
        email: body.email ?? null,
        phone_number: body.phone_number ?? null,
        document_number: body.document_number ?? null,
        ip: req.ip ?? null,
        metadata: body.metadata ?? null,
      }),
  }),
  defineOperation({
    method: 'get',
    path: '/v1/customers/{customer_id}',
    operationId: 'getCustomer',
    tag: 'Customers',
    area: 'api',
    scope: 'customers:read',
    summary: 'Read a customer',
    params: { customer_id: 'cust' },
    commands: [getCustomer],
    cli: { command: 'customers get', description: 'read a customer' },
    sdk: { method: 'customers.get' },
    answers: [json(200, 'The customer.', customer)],
    handle: ({ params, businessId, send }) =>
      send(getCustomer, { business_id: businessId, customer_id: params.customer_id }),
  }),
  // The business's customers, newest first, a page at a time (docs/api.md#lists-and-pagination).
  defineOperation({
    method: 'get',
    path: '/v1/customers',
    operationId: 'listCustomers',
    tag: 'Customers',
    area: 'api',
    scope: 'customers:read',
    summary: "List the business's customers, newest first",
    query: [customersPage, customersFilter],
    checks: [customersFilter, customersPage],
    commands: [listCustomers],
    cli: { command: 'customers list', description: 'list customers, newest first' },
    sdk: { method: 'customers.list' },
    answers: [json(200, 'A page of customers.', pageSchema(customer))],
    handle: ({ query, businessId, send }) =>
      send(listCustomers, {
        business_id: businessId,
        ...pageOf(query),
        ...(query.email !== undefined ? { email: query.email } : {}),
      }),
  }),
];
