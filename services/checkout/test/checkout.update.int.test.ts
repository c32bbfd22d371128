import { getCheckoutPage, newPublicId, updateCheckout, type UpdateCheckout } from '@gateway/contracts';
import {
  checkoutServiceForTheseTests,
  createTestCheckout,
  createTestProduct,
} from './support/checkout-service';

describe('checkout.update.v1', () => {
  const bed = checkoutServiceForTheseTests('checkout-update');
  const update = (command: UpdateCheckout, messageId?: string) =>
    bed.request(updateCheckout, command, { messageId });

  test('changes only the fields given; the rest stays', async () => {
    const checkout = await bed.newCheckout({ title: 'Antes' });
    const reply = await update({
      business_id: checkout.business_id,
      checkout_id: checkout.checkout_id,
      title: '  Depois  ',
      return_url: 'https://loja.example/obrigado-2',
    });
    expect(reply).toEqual({
      ok: true,
      result: { ...checkout, title: 'Depois', return_url: 'https://loja.example/obrigado-2' },
    });
  });

  test('inactive takes the hosted page down; active puts it back', async () => {
    const checkout = await bed.newCheckout();
    const ids = { business_id: checkout.business_id, checkout_id: checkout.checkout_id };
    expect(await update({ ...ids, status: 'inactive' })).toEqual({
      ok: true,
      result: expect.objectContaining({ status: 'inactive' }),
    });
    expect(await bed.request(getCheckoutPage, { slug: checkout.slug })).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'NOT_FOUND' }),
    });
    await update({ ...ids, status: 'active' });
    expect(await bed.request(getCheckoutPage, { slug: checkout.slug })).toEqual(
      expect.objectContaining({ ok: true }),
    );
  });

  test('a url that is not an absolute http(s) URL is INVALID_FIELDS naming it, and nothing changes', async () => {
    const checkout = await bed.newCheckout();
    const reply = await update({
      business_id: checkout.business_id,
      checkout_id: checkout.checkout_id,
      title: 'Não muda',
      cancel_url: 'javascript:alert(1)',
    });
    expect(reply).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'INVALID_FIELDS',
        message: expect.stringContaining('cancel_url'),
      }),
    });
    const again = await update({ business_id: checkout.business_id, checkout_id: checkout.checkout_id });
    expect(again).toEqual({ ok: true, result: checkout });
  });

  test("another business's checkout is NOT_FOUND and stays as it is", async () => {
    const product = await createTestProduct(bed);
    const theirs = await createTestCheckout(bed, product);
    const reply = await update({
      business_id: newPublicId('biz'),
      checkout_id: theirs.checkout_id,
      status: 'inactive',
    });
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
    expect(await bed.request(getCheckoutPage, { slug: theirs.slug })).toEqual(
      expect.objectContaining({ ok: true }),
    );
  });
});
