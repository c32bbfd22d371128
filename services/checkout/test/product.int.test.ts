import {
  createCheckout,
  getCheckoutPage,
  listProducts,
  newPublicId,
  updateProduct,
  type Product,
} from '@gateway/contracts';
import {
  checkoutServiceForTheseTests,
  createTestCheckout,
  createTestProduct,
} from './support/checkout-service';

describe('a business’s products', () => {
  const bed = checkoutServiceForTheseTests('products');

  describe('product.list.v1', () => {
    test("lists the business's products newest first, page after page, and no other business's", async () => {
      const businessId = newPublicId('biz');
      const made: Product[] = [];
      for (const name of ['Um', 'Dois', 'Três'])
        made.push(await createTestProduct(bed, { business_id: businessId, name }));
      await createTestProduct(bed, { business_id: newPublicId('biz') });

      const first = await bed.request(listProducts, { business_id: businessId, limit: 2 });
      if (!first.ok) throw new Error(JSON.stringify(first.error));
      const rest = await bed.request(listProducts, {
        business_id: businessId,
        limit: 2,
        starting_after: first.result.data[1]!.product_id,
      });
      if (!rest.ok) throw new Error(JSON.stringify(rest.error));
      expect([first.result.has_more, rest.result.has_more]).toEqual([true, false]);
      expect([...first.result.data, ...rest.result.data]).toEqual([...made].reverse());
    });

    test("another business's product as the cursor is INVALID_FIELDS", async () => {
      const theirs = await createTestProduct(bed);
      const reply = await bed.request(listProducts, {
        business_id: newPublicId('biz'),
        starting_after: theirs.product_id,
      });
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_FIELDS' }) });
    });
  });

  describe('product.update.v1', () => {
    test('changes only the fields given; its checkouts sell it as it now is', async () => {
      const product = await createTestProduct(bed);
      const checkout = await createTestCheckout(bed, product);
      const reply = await bed.request(updateProduct, {
        business_id: product.business_id,
        product_id: product.product_id,
        name: ' Curso de Violão II ',
        price_centavos: 5990,
      });
      expect(reply).toEqual({
        ok: true,
        result: { ...product, name: 'Curso de Violão II', price_centavos: 5990 },
      });
      expect(await bed.request(getCheckoutPage, { slug: checkout.slug })).toEqual({
        ok: true,
        result: expect.objectContaining({ product_name: 'Curso de Violão II', price_centavos: 5990 }),
      });
    });

    test('a blank name is INVALID_FIELDS; a blank description clears it', async () => {
      const product = await createTestProduct(bed);
      const ids = { business_id: product.business_id, product_id: product.product_id };
      expect(await bed.request(updateProduct, { ...ids, name: '   ' })).toEqual({
        ok: false,
        error: expect.objectContaining({ code: 'INVALID_FIELDS' }),
      });
      expect(await bed.request(updateProduct, { ...ids, description: '  ' })).toEqual({
        ok: true,
        result: { ...product, description: null },
      });
    });

    test('an inactive product is sold by no new checkout until it is active again; its checkouts stay', async () => {
      const product = await createTestProduct(bed);
      const before = await createTestCheckout(bed, product);
      const ids = { business_id: product.business_id, product_id: product.product_id };
      expect(await bed.request(updateProduct, { ...ids, status: 'inactive' })).toEqual({
        ok: true,
        result: { ...product, status: 'inactive' },
      });
      const newCheckout = {
        ...ids,
        return_url: 'https://loja.example/ok',
        cancel_url: 'https://loja.example/volta',
        title: null,
        slug: null,
        metadata: null,
      };
      expect(await bed.request(createCheckout, newCheckout)).toEqual({
        ok: false,
        error: expect.objectContaining({ code: 'INVALID_STATUS' }),
      });
      expect(await bed.request(getCheckoutPage, { slug: before.slug })).toEqual({
        ok: true,
        result: expect.objectContaining({ product_name: product.name }),
      });
      expect(await bed.request(updateProduct, { ...ids, status: 'active' })).toEqual({
        ok: true,
        result: product,
      });
      expect(await bed.request(createCheckout, newCheckout)).toEqual({
        ok: true,
        result: expect.objectContaining({ product_id: product.product_id, status: 'active' }),
      });
    });

    test("another business's product is NOT_FOUND", async () => {
      const theirs = await createTestProduct(bed);
      const reply = await bed.request(updateProduct, {
        business_id: newPublicId('biz'),
        product_id: theirs.product_id,
        name: 'Tomado',
      });
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
    });
  });
});
