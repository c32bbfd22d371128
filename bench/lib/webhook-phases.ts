import { createHmac, timingSafeEqual } from 'node:crypto';
import { letTimePass, waitFor, WebhookReceiver } from '@gateway/testkit';
import { apiCall, inParallel, type StackAccount } from './accounts';

/**
 * Local HTTPS receivers, each on its own port: its own origin, as distinct merchants' endpoints are (the dispatcher
 * bounds concurrent deliveries per origin).
 */
export class Receivers {
  private constructor(private readonly servers: WebhookReceiver[]) {}

  static async start(tls: { key: string; cert: string }, count: number): Promise<Receivers> {
    return new Receivers(await Promise.all(Array.from({ length: count }, () => WebhookReceiver.start(tls))));
  }

  url(receiver: number, path: string): string {
    return this.servers[receiver % this.servers.length]!.url(path);
  }

  get deliveries() {
    return this.servers.flatMap((server) => server.deliveries);
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
  }
}

export interface Subscriber extends StackAccount {
  path: string;
  secret: string;
}

/** Registers one webhook for `payment.confirmed` per (account, receiver, path); paths are unique across receivers. */
export async function subscribe(
  gatewayUrl: string,
  receivers: Receivers,
  subscriptions: ReadonlyArray<{ account: StackAccount; receiver: number; path: string }>,
): Promise<Subscriber[]> {
  return inParallel(subscriptions.length, 8, async (i) => {
    const { account, receiver, path } = subscriptions[i]!;
    const webhook = await apiCall(gatewayUrl, account.apiKey, 'POST', '/v1/webhook', {
      url: receivers.url(receiver, path),
      events: ['payment.confirmed'],
    });
    return { ...account, path, secret: webhook.secret as string };
  });
}

export interface ConfirmedDelivery {
  paymentId: string;
  eventId: string;
  path: string;
  at: number;
  signed: boolean;
}

/** The receivers' payment.confirmed deliveries, each checked against its endpoint's secret (x-service-signature). */
export function confirmedDeliveries(
  receivers: Receivers,
  secretOf: (path: string) => string | undefined,
): ConfirmedDelivery[] {
  return receivers.deliveries.flatMap((delivery) => {
    const event = JSON.parse(delivery.body) as { id: string; type: string; data: { payment_id: string } };
    if (event.type !== 'payment.confirmed') return [];
    const secret = secretOf(delivery.path);
    const expected = secret ? createHmac('sha256', secret).update(delivery.body).digest('hex') : '';
    const given = String(delivery.headers['x-service-signature'] ?? '');
    const signed =
      expected.length > 0 &&
      given.length === expected.length &&
      timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    return [
      { paymentId: event.data.payment_id, eventId: event.id, path: delivery.path, at: delivery.at, signed },
    ];
  });
}

export interface PixPayment {
  paymentId: string;
  account: StackAccount;
}

/** Creates `count` PIX payments spread over the accounts, `parallel` at a time. */
export function createPix(
  gatewayUrl: string,
  accounts: readonly StackAccount[],
  count: number,
  parallel = 8,
) {
  return inParallel(count, parallel, async (i): Promise<PixPayment> => {
    const account = accounts[i % accounts.length]!;
    const created = await apiCall(gatewayUrl, account.apiKey, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 2500 + (i % 100),
      currency: 'brl',
    });
    return { paymentId: created.payment_id as string, account };
  });
}

/** How many simulate requests were answered 503 and asked again (reported with the figures they delay). */
export const simulateRetries = { count: 0 };

/**
 * Asks the sandbox to pay the payment for real (the PSP simulator pays the charge); returns when it was first asked.
 * A 503 (the stack could not answer in time: on a shared machine, PostgreSQL out of connections for a moment) is
 * asked again, up to five times, and counted in `simulateRetries`; the lag still runs from the first ask.
 */
export async function pay(gatewayUrl: string, payment: PixPayment): Promise<number> {
  const askedAt = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await apiCall(
        gatewayUrl,
        payment.account.apiKey,
        'POST',
        `/v1/sandbox/payments/${payment.paymentId}/simulate`,
        {
          outcome: 'paid',
        },
      );
      return askedAt;
    } catch (err) {
      // An earlier ask answered 503 may have gone through after all: the payment is being paid (409), or is no longer
      // open (422 INVALID_STATUS, whatever its status: the bench's check that every payment asked is paid decides).
      if (attempt > 1 && err instanceof Error && /: (409 |422 .*INVALID_STATUS)/.test(err.message))
        return askedAt;
      if (attempt >= 5 || !(err instanceof Error) || !err.message.includes(': 503 ')) throw err;
      simulateRetries.count += 1;
      await letTimePass(200 * attempt);
    }
  }
}

/** Waits until every payment has a payment.confirmed at every path it should reach. */
export async function waitForDeliveries(
  receivers: Receivers,
  expected: number,
  countOf: () => number,
  timeoutMs: number,
): Promise<void> {
  await waitFor(() => countOf() >= expected, {
    timeoutMs,
    intervalMs: 100,
    what: `${expected} payment.confirmed deliveries (${countOf()} so far, ${receivers.deliveries.length} requests)`,
  });
}
