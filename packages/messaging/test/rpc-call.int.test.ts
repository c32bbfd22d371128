import { getPayment, type ErrorCode, type PaymentView } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit-core';
import { CommandError, type Broker, type MessageContext } from '../src';
import { customerPayload, id, openBackbone, sampleCommand, type Backbone } from './backbone-fixture';

/** What a handler saw of a call it made while handling a command. */
interface Observed {
  error?: CommandError;
  waitedMs: number;
}

describe('one typed call between services', () => {
  let backbone: Backbone;
  let client: Broker;
  /** Lets the silent service's handlers end, so closing does not wait for them for ever. */
  let releaseSilent: () => void;
  let silence: Promise<void>;

  beforeEach(async () => {
    silence = new Promise((resolve) => (releaseSilent = resolve));
    backbone = await openBackbone();
    client = await backbone.connectBroker('call-client');
  });

  afterEach(async () => {
    releaseSilent();
    await backbone.close();
  });

  /** A payment service answering `payment.get.v1` by refusing with `code`, or never answering. */
  async function paymentService(answer: { refuse: ErrorCode } | 'silent', seen: MessageContext[] = []) {
    const server = await backbone.connectBroker('call-server');
    await server
      .handlers('payment')
      .handle(getPayment, async (_command, context) => {
        seen.push(context);
        // Never answers while the test runs.
        if (answer === 'silent') return silence as Promise<never>;
        throw new CommandError(answer.refuse, 'Pagamento não encontrado.');
      })
      .consume();
  }

  const question = () => ({ business_id: id('biz'), payment_id: id('pay') });

  test('a refusal the command declares reaches the caller with its code and message', async () => {
    await paymentService({ refuse: 'NOT_FOUND' });
    const call = client.call(getPayment, question(), { timeoutMs: 5000 });
    await expect(call).rejects.toEqual(new CommandError('NOT_FOUND', 'Pagamento não encontrado.'));
  });

  test('a public code the command does not declare reaches the caller as INTERNAL_ERROR', async () => {
    await paymentService({ refuse: 'INVALID_STATUS' });
    const call = client.call(getPayment, question(), { timeoutMs: 5000 });
    await expect(call).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  test('a reply that breaks its contract reaches the caller as INTERNAL_ERROR, never as its own bad input', async () => {
    const server = await backbone.connectBroker('call-server');
    await server
      .handlers('payment')
      // A reply its contract refuses: only a cast gets such a handler past the compiler.
      .handle(getPayment, async () => ({ payment: { payment_id: 42 } }) as unknown as PaymentView)
      .consume();
    await expect(client.call(getPayment, question(), { timeoutMs: 5000 })).rejects.toEqual(
      new CommandError('INTERNAL_ERROR', 'Erro interno do servidor.'),
    );
  });

  test('no answer in time is SERVICE_UNAVAILABLE, after the timeout and not later', async () => {
    await paymentService('silent');
    const started = Date.now();
    await expect(client.call(getPayment, question(), { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('a hop never waits longer than its caller still will: the deadline travels in the envelope', async () => {
    const innerCalls: MessageContext[] = [];
    await paymentService('silent', innerCalls);
    const observed: Observed[] = [];
    const outerCalls: MessageContext[] = [];
    const middle = await backbone.connectBroker('call-middle');
    await middle
      .handlers('customer')
      .handle(sampleCommand, async (_command, context) => {
        outerCalls.push(context);
        const started = Date.now();
        try {
          // Far longer than the outer caller waits: the inherited deadline must win.
          await middle.call(getPayment, question(), { timeoutMs: 30_000, within: context });
        } catch (err) {
          observed.push({ error: err as CommandError, waitedMs: Date.now() - started });
        }
        throw new CommandError('INVALID_FIELDS', 'fim');
      })
      .consume();

    await expect(client.call(sampleCommand, customerPayload(), { timeoutMs: 800 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    const [seen] = await waitFor(() => observed.length > 0 && observed, {
      what: 'the middle hop to give up',
    });
    expect(seen?.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(seen?.waitedMs).toBeLessThan(1500);
    const outer = outerCalls[0]!.envelope;
    const inner = innerCalls[0]!.envelope;
    expect(Date.parse(inner.deadline!)).toBeLessThanOrEqual(Date.parse(outer.deadline!));
    expect(inner.correlation_id).toBe(outer.correlation_id);
    expect(inner.causation_id).toBe(outer.id);
  });

  test('a call made after its caller stopped waiting is not sent at all', async () => {
    const innerCalls: MessageContext[] = [];
    await paymentService('silent', innerCalls);
    const expired = {
      envelope: {
        id: id('msg'),
        correlation_id: id('flow'),
        deadline: new Date(Date.now() - 1).toISOString(),
      },
    };
    await expect(
      client.call(getPayment, question(), { timeoutMs: 5000, within: expired }),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    // A call that was sent would reach the silent service within this follow-up's round trip.
    await expect(client.call(getPayment, question(), { timeoutMs: 500 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(innerCalls.map((c) => c.envelope.correlation_id)).not.toContain(expired.envelope.correlation_id);
  });
});
