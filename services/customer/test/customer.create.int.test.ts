import { createCustomer, newPublicId, type CreateCustomer } from '@gateway/contracts';
import { poisonedEnvelope, publishAndAwaitParking, untilAnsweredOk } from '@gateway/testkit';
import { customerServiceForTheseTests } from './support/customer-service';

describe('customer.create.v1', () => {
  const bed = customerServiceForTheseTests('customer');

  const command = (overrides: Partial<CreateCustomer> = {}): CreateCustomer => ({
    business_id: newPublicId('biz'),
    name: null,
    email: 'Maria.Silva@Example.COM',
    phone_number: '(11) 91234-5678',
    document_number: '529.982.247-25',
    ip: '203.0.113.7',
    metadata: '{"crm_id":42}',
    ...overrides,
  });

  const countCustomers = async (businessId: string): Promise<number> => {
    const rows = await bed.service.dataSource.query(
      'SELECT count(*)::int AS n FROM customers WHERE business_id = $1',
      [businessId],
    );
    return rows[0].n;
  };

  test('a valid customer is stored normalised and returned with a cust_ id', async () => {
    const input = command();
    const reply = await bed.request(createCustomer, input);
    expect(reply).toEqual({
      ok: true,
      result: expect.objectContaining({
        customer_id: expect.stringMatching(/^cust_[A-Za-z0-9_-]{24}$/),
        business_id: input.business_id,
        email: 'Maria.Silva@example.com',
        phone_number: '+5511912345678',
        document_number: '52998224725',
        ip: '203.0.113.7',
        metadata: '{"crm_id":42}',
      }),
    });
  });

  test('a name is kept with its spaces collapsed; a blank one, or one with control characters, is refused', async () => {
    const named = await bed.request(createCustomer, command({ name: '  Maria   da  Silva ' }));
    expect(named).toMatchObject({ ok: true, result: { name: 'Maria da Silva' } });
    for (const name of ['   ', 'Maria\u0007Silva', 'Maria\u202eavliS']) {
      const input = command({ name });
      expect(await bed.request(createCustomer, input)).toEqual({
        ok: false,
        error: { code: 'INVALID_FIELDS', message: expect.stringContaining('name') },
      });
      expect(await countCustomers(input.business_id)).toBe(0);
    }
  });

  test('an invalid CPF is refused with INVALID_FIELDS naming the field, and nothing is stored', async () => {
    const input = command({ document_number: '123.456.789-00' });
    const reply = await bed.request(createCustomer, input);
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_FIELDS', message: expect.stringContaining('document_number') },
    });
    expect(await countCustomers(input.business_id)).toBe(0);
  });

  test('when the same command is delivered twice, one customer is created and both replies are the same', async () => {
    const input = command();
    const messageId = newPublicId('cmd');
    const first = await bed.request(createCustomer, input, { messageId });
    const second = await bed.request(createCustomer, input, { messageId });
    expect(second).toEqual(first);
    expect(await countCustomers(input.business_id)).toBe(1);
  });

  test('a poison message is parked and answered with INTERNAL_ERROR instead of being retried forever', async () => {
    const envelope = poisonedEnvelope(createCustomer, command(), { business_id: 42 });
    const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'customer', 'commands', envelope);
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('business_id') }),
    ]);
    const healthy = await bed.request(createCustomer, command());
    expect(healthy.ok).toBe(true);
  });

  test('after the service loses its broker connection it reconnects and serves commands again', async () => {
    bed.service.broker.dropConnectionForTesting();
    const input = command();
    const reply = await untilAnsweredOk(() =>
      bed.request(createCustomer, input, { timeoutMs: 1000, messageId: 'retry-same-id' }),
    );
    expect(reply.ok).toBe(true);
    expect(await countCustomers(input.business_id)).toBe(1);
  });
});
