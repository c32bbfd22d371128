import { createCustomer, newPublicId, type CreateCustomer } from '@gateway/contracts';
import { Broker, createEnvelope, type ServiceRuntime } from '@gateway/messaging';
import {
  isolatedEnvironment,
  takeParkedMessages,
  testLogger,
  waitFor,
  type IsolatedEnvironment,
} from '@gateway/testkit';
import { startCustomerService } from '../src/main';

describe('customer.create.v1', () => {
  let env: IsolatedEnvironment;
  let service: ServiceRuntime;
  let client: Broker;

  beforeAll(async () => {
    env = await isolatedEnvironment('customer');
    service = await startCustomerService(env.config);
    client = await Broker.connect({
      url: env.config.AMQP_URL,
      prefix: env.config.AMQP_PREFIX,
      connectionName: 'customer-test-client',
      logger: testLogger(),
    });
  });

  afterAll(async () => {
    await service.broker.deleteDeclaredTopology();
    await client.close();
    await service.stop();
    await env.database.drop();
  });

  const command = (overrides: Partial<CreateCustomer> = {}): CreateCustomer => ({
    business_id: newPublicId('biz'),
    email: 'Maria.Silva@Example.COM',
    phone_number: '(11) 91234-5678',
    document_number: '529.982.247-25',
    ip: '203.0.113.7',
    metadata: '{"crm_id":42}',
    ...overrides,
  });

  const countCustomers = async (businessId: string): Promise<number> => {
    const rows = await service.dataSource.query(
      'SELECT count(*)::int AS n FROM customers WHERE business_id = $1',
      [businessId],
    );
    return rows[0].n;
  };

  test('a valid customer is stored normalised and returned with a cust_ id', async () => {
    const input = command();
    const reply = await client.request(createCustomer, input, { timeoutMs: 5000 });
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

  test('an invalid CPF is refused with INVALID_FIELDS naming the field, and nothing is stored', async () => {
    const input = command({ document_number: '123.456.789-00' });
    const reply = await client.request(createCustomer, input, { timeoutMs: 5000 });
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_FIELDS', message: expect.stringContaining('document_number') },
    });
    expect(await countCustomers(input.business_id)).toBe(0);
  });

  test('when the same command is delivered twice, one customer is created and both replies are the same', async () => {
    const input = command();
    const messageId = newPublicId('cmd');
    const first = await client.request(createCustomer, input, { timeoutMs: 5000, messageId });
    const second = await client.request(createCustomer, input, { timeoutMs: 5000, messageId });
    expect(second).toEqual(first);
    expect(await countCustomers(input.business_id)).toBe(1);
  });

  test('a poison message is parked and answered with INTERNAL_ERROR instead of being retried forever', async () => {
    const envelope = createEnvelope(createCustomer, command());
    const broken = { ...envelope, payload: { ...envelope.payload, business_id: 42 } };
    await client.publishEnvelope(broken as never, {});
    const parked = await waitFor(
      async () => {
        const taken = await takeParkedMessages(`${env.config.AMQP_PREFIX}customer.commands.parking`);
        return taken.length > 0 ? taken : undefined;
      },
      { what: 'the parked command' },
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('business_id') }),
    ]);
    const healthy = await client.request(createCustomer, command(), { timeoutMs: 5000 });
    expect(healthy.ok).toBe(true);
  });

  test('after the service loses its broker connection it reconnects and serves commands again', async () => {
    service.broker.dropConnectionForTesting();
    const input = command();
    const reply = await waitFor(
      async () => {
        const answer = await client
          .request(createCustomer, input, { timeoutMs: 1000, messageId: 'retry-same-id' })
          .catch(() => undefined);
        return answer?.ok ? answer : undefined;
      },
      { timeoutMs: 15_000, what: 'a reply after reconnect' },
    );
    expect(reply.ok).toBe(true);
    expect(await countCustomers(input.business_id)).toBe(1);
  });
});
