import {
  createCustomer,
  getCustomer,
  listCustomers,
  newPublicId,
  type Customer,
  type ListCustomers,
} from '@gateway/contracts';
import { customerServiceForTheseTests } from './support/customer-service';

describe('customer.get.v1 and customer.list.v1', () => {
  const bed = customerServiceForTheseTests('customer-read');

  const createFor = async (businessId: string, count: number): Promise<Customer[]> => {
    const made: Customer[] = [];
    for (let i = 0; i < count; i += 1) {
      const reply = await bed.request(createCustomer, {
        business_id: businessId,
        name: null,
        email: `cliente${i}@example.com`,
        phone_number: null,
        document_number: null,
        ip: null,
        metadata: null,
      });
      if (!reply.ok) throw new Error(JSON.stringify(reply.error));
      made.push(reply.result);
    }
    return made;
  };
  const list = (query: ListCustomers) => bed.request(listCustomers, query);

  test("reads one of the business's customers; another business's, or an unknown one, is NOT_FOUND", async () => {
    const businessId = newPublicId('biz');
    const [customer] = await createFor(businessId, 1);

    expect(
      await bed.request(getCustomer, { business_id: businessId, customer_id: customer!.customer_id }),
    ).toEqual({ ok: true, result: customer });
    for (const query of [
      { business_id: newPublicId('biz'), customer_id: customer!.customer_id },
      { business_id: businessId, customer_id: newPublicId('cust') },
    ]) {
      const reply = await bed.request(getCustomer, query);
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
    }
  });

  test("lists only the business's customers, newest first, page after page until has_more is false", async () => {
    const businessId = newPublicId('biz');
    const made = await createFor(businessId, 5);
    await createFor(newPublicId('biz'), 2);

    const pages: Customer[][] = [];
    let startingAfter: string | null = null;
    for (;;) {
      const reply = await list({ business_id: businessId, limit: 2, starting_after: startingAfter });
      if (!reply.ok) throw new Error(JSON.stringify(reply.error));
      pages.push(reply.result.data);
      if (!reply.result.has_more) break;
      startingAfter = reply.result.data.at(-1)!.customer_id;
      // A customer created between two pages is newer than the cursor: never on a later page.
      await createFor(businessId, 1);
    }

    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual([...made].reverse());
  });

  test("by e-mail: the business's customers with that address once normalised, no other business's", async () => {
    const businessId = newPublicId('biz');
    const [first, second, other] = await createFor(businessId, 3);
    const again = await bed.request(createCustomer, {
      business_id: businessId,
      name: null,
      email: 'cliente0@EXAMPLE.com',
      phone_number: null,
      document_number: null,
      ip: null,
      metadata: null,
    });
    if (!again.ok) throw new Error(JSON.stringify(again.error));
    const [theirs] = await createFor(newPublicId('biz'), 1);
    expect(theirs!.email).toBe(first!.email);

    const found = await list({ business_id: businessId, email: ' cliente0@Example.COM ' });
    expect(found).toEqual({ ok: true, result: { data: [again.result, first], has_more: false } });
    // The local part keeps its case, as stored: another address.
    expect(await list({ business_id: businessId, email: 'Cliente0@example.com' })).toEqual({
      ok: true,
      result: { data: [], has_more: false },
    });
    const paged = await list({ business_id: businessId, email: 'cliente0@example.com', limit: 1 });
    expect(paged).toEqual({ ok: true, result: { data: [again.result], has_more: true } });
    expect(second!.email).not.toBe(other!.email);
  });

  test('by an e-mail that is not an address is INVALID_FIELDS', async () => {
    const reply = await list({ business_id: newPublicId('biz'), email: 'não é e-mail' });
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_FIELDS' }) });
  });

  test("another business's customer as the cursor is INVALID_FIELDS", async () => {
    const [theirs] = await createFor(newPublicId('biz'), 1);
    const reply = await list({ business_id: newPublicId('biz'), starting_after: theirs!.customer_id });
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_FIELDS' }) });
  });
});
