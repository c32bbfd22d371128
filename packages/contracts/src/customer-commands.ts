import Joi from 'joi';
import { defineCommand } from './message';
import { boundedText, businessId, isoDate } from './common';

export interface Customer {
  customer_id: string;
  business_id: string;
  email: string | null;
  phone_number: string | null;
  document_number: string | null;
  ip: string | null;
  metadata: string | null;
  created_at: string;
}

export interface CreateCustomer {
  business_id: string;
  email: string | null;
  phone_number: string | null;
  document_number: string | null;
  ip: string | null;
  metadata: string | null;
}
const nullableText = Joi.string().max(2000).allow(null).required();
export const createCustomer = defineCommand<CreateCustomer, Customer>(
  'customer.create.v1',
  'customer',
  Joi.object({
    business_id: businessId.required(),
    email: boundedText('email').allow(null).required(),
    phone_number: boundedText('phone_number').allow(null).required(),
    document_number: boundedText('document_number').allow(null).required(),
    ip: nullableText,
    metadata: boundedText('metadata').allow(null).required(),
  }),
  Joi.object({
    customer_id: Joi.string().required(),
    business_id: businessId.required(),
    email: Joi.string().allow(null).required(),
    phone_number: Joi.string().allow(null).required(),
    document_number: Joi.string().allow(null).required(),
    ip: Joi.string().allow(null).required(),
    metadata: Joi.string().allow(null).required(),
    created_at: isoDate.required(),
  }),
  ['MISSING_FIELDS', 'INVALID_FIELDS'],
);
