import {
  createProduct,
  listProducts,
  newPublicId,
  updateCheckout,
  updateProduct,
  type Checkout,
  type CreateProduct,
  type Product,
  type UpdateCheckout,
  type UpdateProduct,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { expectedPageCommand, harnessWithMerchantForTheseTests } from './support/harness';

describe('api gateway: /v1/products and PATCH /v1/checkouts/{id}', () => {
  const h = harnessWithMerchantForTheseTests('gw-products', { merchant: 'Ateliê Linha' });
  const as = <T extends { set(name: string, value: string): T }>(call: T, apiKey = h.merchant.api_key) =>
    call.set('x-api-key', apiKey);

  const product = (overrides: Partial<Product> = {}): Product => ({
    product_id: newPublicId('prod'),
    business_id: h.merchant.business_id,
    name: 'Camiseta',
    description: null,
    price_centavos: 7990,
    status: 'active',
    created_at: '2026-11-29T10:00:00.000Z',
    ...overrides,
  });
  /**
   * The public answer: the price in BRL only, never the centavos it is kept in; `interval` null for a one-off product
   * (and from a checkout service older than recurring products, which sends none).
   */
  const answered = ({ price_centavos, ...stored }: Product) => ({
    interval: null,
    ...stored,
    price: price_centavos / 100,
  });

  test('POST /v1/products creates the caller’s product, price in centavos, answered in BRL too', async () => {
    h.fakes.on(createProduct, async (command: CreateProduct) =>
      product({
        name: command.name,
        price_centavos: command.price_centavos,
        description: command.description,
      }),
    );
    const response = await as(h.http.post('/v1/products')).send({ name: 'Caneca', price: 3500 });
    expect(response.status).toBe(201);
    expect(response.body).toEqual(
      answered(product({ product_id: response.body.product_id, name: 'Caneca', price_centavos: 3500 })),
    );
    expect(h.fakes.receivedOf(createProduct).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      name: 'Caneca',
      description: null,
      price_centavos: 3500,
      interval: null,
    });
  });

  test.each([
    ['a price below R$ 1,00', { name: 'Caneca', price: 99 }, 'INVALID_AMOUNT'],
    ['no name', { price: 3500 }, 'MISSING_FIELDS'],
  ])('POST /v1/products with %s is %s, the checkout service never asked', async (_what, body, code) => {
    const before = h.fakes.receivedOf(createProduct).length;
    const response = await as(h.http.post('/v1/products')).send(body);
    expect({ status: response.status, code: response.body.error.code }).toEqual({ status: 422, code });
    expect(h.fakes.receivedOf(createProduct)).toHaveLength(before);
  });

  test('GET /v1/products lists a page of the caller’s products with the cursor it was given', async () => {
    const stored = [product(), product({ name: 'Caneca', description: 'Branca' })];
    h.fakes.on(listProducts, async () => ({ data: stored, has_more: true }));
    const after = newPublicId('prod');
    const response = await as(h.http.get(`/v1/products?limit=2&starting_after=${after}`));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: stored.map(answered), has_more: true });
    expect(h.fakes.receivedOf(listProducts).at(-1)).toEqual(
      expectedPageCommand(h.merchant, {}, { limit: 2, starting_after: after }),
    );
  });

  test('PATCH /v1/products/{id} sends only the fields given; another business’s product is NOT_FOUND', async () => {
    const mine = product();
    h.fakes.on(updateProduct, async (command: UpdateProduct) => {
      if (command.product_id !== mine.product_id)
        throw new CommandError('NOT_FOUND', 'Produto não encontrado.');
      return { ...mine, price_centavos: command.price_centavos ?? mine.price_centavos };
    });
    const response = await as(h.http.patch(`/v1/products/${mine.product_id}`)).send({ price: 8990 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(answered({ ...mine, price_centavos: 8990 }));
    expect(h.fakes.receivedOf(updateProduct).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      product_id: mine.product_id,
      price_centavos: 8990,
    });
    const theirs = await as(h.http.patch(`/v1/products/${newPublicId('prod')}`)).send({ name: 'X' });
    expect({ status: theirs.status, code: theirs.body.error.code }).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
    const before = h.fakes.receivedOf(updateProduct).length;
    expect(
      (await as(h.http.patch('/v1/products/chk_abcdefghijklmnopqrstuvwx')).send({ name: 'X' })).status,
    ).toBe(404);
    expect(h.fakes.receivedOf(updateProduct)).toHaveLength(before);
  });

  test('PATCH /v1/products/{id} deactivates a product; a status that is not one is INVALID_FIELDS', async () => {
    const mine = product();
    h.fakes.on(updateProduct, async (command: UpdateProduct) => ({ ...mine, status: command.status! }));
    const response = await as(h.http.patch(`/v1/products/${mine.product_id}`)).send({ status: 'inactive' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(answered({ ...mine, status: 'inactive' }));
    expect(h.fakes.receivedOf(updateProduct).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      product_id: mine.product_id,
      status: 'inactive',
    });
    const before = h.fakes.receivedOf(updateProduct).length;
    const refused = await as(h.http.patch(`/v1/products/${mine.product_id}`)).send({ status: 'archived' });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_FIELDS',
    });
    expect(h.fakes.receivedOf(updateProduct)).toHaveLength(before);
  });

  test('PATCH /v1/checkouts/{id} deactivates a checkout and answers it with its url', async () => {
    const checkout: Checkout = {
      checkout_id: newPublicId('chk'),
      business_id: h.merchant.business_id,
      product_id: newPublicId('prod'),
      slug: 'camiseta-abc123',
      title: null,
      return_url: 'https://loja.example/ok',
      cancel_url: 'https://loja.example/volta',
      metadata: null,
      status: 'active',
      created_at: '2026-11-29T10:00:00.000Z',
    };
    h.fakes.on(updateCheckout, async (command: UpdateCheckout) => ({ ...checkout, status: command.status! }));
    const response = await as(h.http.patch(`/v1/checkouts/${checkout.checkout_id}`)).send({
      status: 'inactive',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...checkout,
      status: 'inactive',
      url: 'https://pay.example.com/c/camiseta-abc123',
    });
    expect(h.fakes.receivedOf(updateCheckout).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      checkout_id: checkout.checkout_id,
      status: 'inactive',
    });
  });

  test.each([
    ['a status that is not one', { status: 'paused' }],
    ['a return_url that is not http(s)', { return_url: 'javascript:alert(1)' }],
  ])('PATCH /v1/checkouts/{id} with %s is INVALID_FIELDS', async (_what, body) => {
    const before = h.fakes.receivedOf(updateCheckout).length;
    const response = await as(h.http.patch(`/v1/checkouts/${newPublicId('chk')}`)).send(body);
    expect({ status: response.status, code: response.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_FIELDS',
    });
    expect(h.fakes.receivedOf(updateCheckout)).toHaveLength(before);
  });
});
