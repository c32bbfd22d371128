import Joi from 'joi';
import {
  boundedText,
  businessId,
  centavosToBrl,
  isoDate,
  listProducts,
  pageSchema,
  productId,
  productName,
  productStatuses,
  publicId,
  subscriptionIntervals,
  createProduct,
  updateProduct,
  type Product,
} from '@gateway/contracts';
import { defineOperation, json, only, pageOf } from '../operation';
import { brl, nullableText } from '../openapi/response-schemas';
import { amountField, pageQuery } from '../validation';

// A product is what a checkout sells: the operator API and the public API create it alike (same body, same record).

/** A recurring product's interval; null: a one-off sale. Fixed at creation (a subscription keeps the interval it had). */
const productInterval = Joi.string()
  .valid(...subscriptionIntervals)
  .allow(null)
  .description(
    'Recurring: its checkouts sell a subscription of `price` every `interval` (Pix Automático: the buyer gives a ' +
      'name and CPF, and one QR code pays the first cycle and authorizes the rest). Null or absent: a one-off sale.',
  );

export const productBody = Joi.object({
  name: productName.required(),
  price: amountField.required(),
  description: boundedText('description').allow(null),
  interval: productInterval,
});

export const productChanges = Joi.object({
  name: productName,
  price: amountField,
  description: boundedText('description').allow(null),
  status: Joi.string().valid(...productStatuses),
});

export const productRecord = Joi.object({
  product_id: publicId('prod').required(),
  business_id: businessId.required(),
  name: Joi.string().required(),
  description: nullableText,
  price: brl.required(),
  status: Joi.string()
    .valid(...productStatuses)
    .required()
    .description('`inactive`: no new checkout may sell it (its existing checkouts are left as they are).'),
  interval: productInterval.required(),
  created_at: isoDate.required(),
}).id('Product');

/** The operator API's product: also its price in centavos, as it is kept (the public API shows money in BRL only). */
export const operatorProductRecord = productRecord
  .keys({ price_centavos: Joi.number().integer().required() })
  .id('OperatorProduct');

/** A product as the public API answers it: its price in BRL. */
export const publicProduct = (product: Product) => ({
  product_id: product.product_id,
  business_id: product.business_id,
  name: product.name,
  description: product.description,
  price: centavosToBrl(product.price_centavos),
  status: product.status,
  interval: product.interval ?? null,
  created_at: product.created_at,
});

/** A product as the operator API answers it: its price in BRL, and in centavos as it is kept. */
export const operatorProduct = (product: Product) => ({
  ...publicProduct(product),
  price_centavos: product.price_centavos,
});

export const productsPage = pageQuery(productId);

/** /v1/products: the business's products (in the Checkouts group: a checkout sells one). */
export const productOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/products',
    operationId: 'createOwnProduct',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:write',
    summary: 'Create a product, what a checkout sells',
    description: '`price` in centavos, as a payment amount (INVALID_AMOUNT outside its bounds).',
    body: {
      name: 'CreateOwnProductRequest',
      schema: productBody,
      codes: { amount: ['price'] },
      examples: {
        oneOff: {
          summary: 'A product',
          value: { name: 'Camiseta', price: 7990, description: 'Algodão orgânico' },
        },
        recurring: {
          summary: 'A monthly subscription',
          value: { name: 'Clube do café', price: 4990, interval: 'monthly' },
        },
      },
    },
    commands: [createProduct],
    errors: ['INVALID_AMOUNT'],
    cli: {
      command: 'products create',
      description: 'create a product (checkouts sell products)',
      fields: { price: { value: 'centavos' } },
    },
    sdk: { method: 'products.create' },
    answers: [json(201, 'The product.', productRecord)],
    handle: async ({ body, businessId: business, send }) =>
      publicProduct(
        await send(createProduct, {
          business_id: business,
          name: body.name,
          description: body.description ?? null,
          price_centavos: body.price,
          interval: body.interval ?? null,
        }),
      ),
  }),
  defineOperation({
    method: 'get',
    path: '/v1/products',
    operationId: 'listProducts',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:read',
    summary: "List the business's products, newest first",
    query: [productsPage],
    commands: [listProducts],
    cli: { command: 'products list', description: 'list products, newest first' },
    sdk: { method: 'products.list' },
    answers: [json(200, 'A page of products.', pageSchema(productRecord))],
    handle: async ({ query, businessId: business, send }) => {
      const page = await send(listProducts, { business_id: business, ...pageOf(query) });
      return { data: page.data.map(publicProduct), has_more: page.has_more };
    },
  }),
  defineOperation({
    method: 'patch',
    path: '/v1/products/{product_id}',
    operationId: 'updateProduct',
    tag: 'Checkouts',
    area: 'api',
    scope: 'checkouts:write',
    summary: 'Change a product; its checkouts sell it as it now is',
    description:
      'Only the fields sent change; a `null` description clears it. `status: inactive` deactivates it: creating a ' +
      'checkout for it is then `422 INVALID_STATUS` (its existing checkouts are left as they are); `active` ' +
      'reactivates it.',
    params: { product_id: 'prod' },
    body: {
      name: 'UpdateProductRequest',
      schema: productChanges,
      codes: { amount: ['price'] },
      examples: only('A new price, R$ 89,90', { price: 8990 }),
    },
    checks: ['body', 'params'],
    commands: [updateProduct],
    errors: ['INVALID_AMOUNT'],
    cli: {
      command: 'products update',
      description: 'change a product',
      fields: { price: { value: 'centavos' } },
    },
    sdk: { method: 'products.update', optionalBody: false },
    answers: [json(200, 'The product as it now is.', productRecord)],
    handle: async ({ params, body, businessId: business, send }) =>
      publicProduct(
        await send(updateProduct, {
          business_id: business,
          product_id: params.product_id,
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.price !== undefined ? { price_centavos: body.price } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
        }),
      ),
  }),
];
