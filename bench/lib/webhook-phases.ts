import { createHmac, timingSafeEqual } from 'node:crypto';
import { waitFor } from '@gateway/testkit';
import type { FaultyWebhookReceiver } from '@gateway/testkit/src/faults/webhook-receiver';
import { apiCall, inParallel, type StackAccount } from './accounts';

export interface Subscriber extends StackAccount {
  path: string;
  secret: string;
}

/** Registers one webhook for `payment.confirmed` per (account, path) at the receiver. */
export async function subscribe(
  gatewayUrl: string,
  receiver: FaultyWebhookReceiver,
  subscriptions: ReadonlyArray<{ account: StackAccount; path: string }>,
): Promise<Subscriber[]> {
  return inParallel(subscriptions.length, 8, async (i) => {
    const { account, path } = subscriptions[i]!;
    const webhook = await apiCall(gatewayUrl, account.apiKey, 'POST', '/v1/webhook', {
      url: receiver.url(path),
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

/** The receiver's payment.confirmed deliveries, each checked against its endpoint's secret (x-service-signature). */
export function confirmedDeliveries(
  receiver: FaultyWebhookReceiver,
  secretOf: (path: string) => string | undefined,
): ConfirmedDelivery[] {
  return receiver.deliveries.flatMap((delivery) => {
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

/** Asks the sandbox to pay the payment for real (the PSP simulator pays the charge); returns when it was asked. */
export async function pay(gatewayUrl: string, payment: PixPayment): Promise<number> {
  const askedAt = Date.now();
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
}

/** Waits until every payment has a payment.confirmed at every path it should reach. */
export async function waitForDeliveries(
  receiver: FaultyWebhookReceiver,
  expected: number,
  countOf: () => number,
  timeoutMs: number,
): Promise<void> {
  await waitFor(() => countOf() >= expected, {
    timeoutMs,
    intervalMs: 100,
    what: `${expected} payment.confirmed deliveries (${countOf()} so far, ${receiver.deliveries.length} requests)`,
  });
}
