import Joi from 'joi';
import { defineCommand } from './message';
import { boundedText, businessId, customerId, isoDate } from './common';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import type { Customer } from './public-api';

/** A customer as a business creates it: every field but the ones the service gives. */
export type CreateCustomer = Omit<Customer, 'customer_id' | 'created_at'>;
const nullableText = Joi.string().max(2000).allow(null).required();
const customerSchema = Joi.object<Customer>({
  customer_id: Joi.string().required(),
  business_id: businessId.required(),
  name: Joi.string().allow(null).required(),
  email: Joi.string().allow(null).required(),
  phone_number: Joi.string().allow(null).required(),
  document_number: Joi.string().allow(null).required(),
  ip: Joi.string().allow(null).required(),
  metadata: Joi.string().allow(null).required(),
  created_at: isoDate.required(),
});
export const createCustomer = defineCommand<CreateCustomer, Customer>(
  'customer.create.v1',
  'customer',
  Joi.object({
    business_id: businessId.required(),
    name: boundedText('name').allow(null).required(),
    email: boundedText('email').allow(null).required(),
    phone_number: boundedText('phone_number').allow(null).required(),
    document_number: boundedText('document_number').allow(null).required(),
    ip: nullableText,
    metadata: boundedText('metadata').allow(null).required(),
  }),
  customerSchema,
  ['MISSING_FIELDS', 'INVALID_FIELDS'],
);

/** One of the business's customers; another business's is NOT_FOUND. */
export interface GetCustomer {
  business_id: string;
  customer_id: string;
}
export const getCustomer = defineCommand<GetCustomer, Customer>(
  'customer.get.v1',
  'customer',
  Joi.object({ business_id: businessId.required(), customer_id: customerId.required() }),
  customerSchema,
  ['NOT_FOUND'],
);

/**
 * A page of the business's customers, newest first (creation time, then id), after `starting_after`; with `email`,
 * only those whose address is that one once normalised as customers are stored (an address that is not one is
 * INVALID_FIELDS).
 */
export interface ListCustomers extends PageQuery {
  business_id: string;
  email?: string;
}
export const listCustomers = defineCommand<ListCustomers, Page<Customer>>(
  'customer.list.v1',
  'customer',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: customerId.allow(null),
    email: boundedText('email'),
  }),
  pageSchema(customerSchema),
  ['INVALID_FIELDS'],
);
