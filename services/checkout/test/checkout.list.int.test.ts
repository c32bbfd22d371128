import { listCheckouts, newPublicId, type Checkout, type ListCheckouts } from '@gateway/contracts';
import {
  checkoutServiceForTheseTests,
  createTestCheckout,
  createTestProduct,
} from './support/checkout-service';

describe('checkout.list.v1', () => {
  const bed = checkoutServiceForTheseTests('checkout-list');

  const list = (query: ListCheckouts) => bed.request(listCheckouts, query);
  const checkoutsOf = async (businessId: string, count: number): Promise<Checkout[]> => {
    const product = await createTestProduct(bed, { business_id: businessId });
    const made: Checkout[] = [];
    for (let i = 0; i < count; i += 1) made.push(await createTestCheckout(bed, product));
    return made;
  };

  test("lists the business's checkouts newest first, page after page, without their sessions", async () => {
    const businessId = newPublicId('biz');
    const made = await checkoutsOf(businessId, 3);
    await checkoutsOf(newPublicId('biz'), 1);

    const first = await list({ business_id: businessId, limit: 2 });
    if (!first.ok) throw new Error(JSON.stringify(first.error));
    const rest = await list({
      business_id: businessId,
      limit: 2,
      starting_after: first.result.data[1]!.checkout_id,
    });
    if (!rest.ok) throw new Error(JSON.stringify(rest.error));

    expect([first.result.has_more, rest.result.has_more]).toEqual([true, false]);
    expect([...first.result.data, ...rest.result.data]).toEqual([...made].reverse());
    expect(first.result.data.every((checkout) => checkout.sessions === undefined)).toBe(true);
  });

  test("another business's checkout as the cursor is INVALID_FIELDS", async () => {
    const [theirs] = await checkoutsOf(newPublicId('biz'), 1);
    const reply = await list({ business_id: newPublicId('biz'), starting_after: theirs!.checkout_id });
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_FIELDS' }) });
  });
});
