import { Client } from 'pg';
import { paymentConfirmed, type PaymentEventPayload } from '@gateway/contracts';
import {
  jsonLogLines,
  publishAndAwaitHandling,
  stackWithMerchantForTheseTests,
  waitFor,
  withoutEventBinding,
} from '@gateway/testkit';

/** How long a payment may take to be paid and its webhook sent on a loaded CI machine. */
const EFFECT_MS = 60_000;
jest.setTimeout(4 * EFFECT_MS);

interface LoggedEvent {
  position: string;
  envelopeId: string;
  payload: PaymentEventPayload;
}

/**
 * Issue 32's "no webhook lost": the broker loses a `payment.confirmed` on its way to the dispatcher (its binding is
 * gone while the payment is confirmed), and the merchant's webhook receives it anyway, once, from the dispatcher's
 * reading of the payment service's event log; an event both roads bring is delivered once.
 */
describe('a webhook the broker lost is delivered from the owner event log', () => {
  const live = stackWithMerchantForTheseTests({
    name: 'Loja Sem Perdas',
    webhookEvents: ['payment.confirmed'],
    extraEnv: { EVENT_LOG_RECONCILE_INTERVAL_MS: '250', EVENT_LOG_SETTLE_SECONDS: '1' },
  });
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: live.stack.env.database.url });
    // The stack's database may be dropped before this client ends.
    db.on('error', () => undefined);
    await db.connect();
  });

  afterAll(() => db?.end());

  const paidPayment = async (): Promise<string> => {
    const { payment_id: paymentId } = await live.client.createPayment(live.apiKey, {
      payment_method: 'pix',
      amount: 1500,
    });
    await live.client.payInSandbox(live.apiKey, paymentId);
    await live.client.paymentIn(live.apiKey, paymentId, 'paid');
    return paymentId;
  };

  /** The payment's `payment.confirmed` as the payment service's log holds it. */
  const confirmedEvent = async (paymentId: string): Promise<LoggedEvent | undefined> => {
    const { rows } = await db.query<{ position: string; envelope_id: string; payload: PaymentEventPayload }>(
      `SELECT seq::text AS position, message_id AS envelope_id, envelope->'payload' AS payload FROM payment.outbox
        WHERE name = $1 AND envelope->'payload'->'payment'->>'payment_id' = $2`,
      [paymentConfirmed.name, paymentId],
    );
    const row = rows[0];
    return row && { position: row.position, envelopeId: row.envelope_id, payload: row.payload };
  };

  /** Whether a reconciliation pass has read the payment service's log past `position` (and recorded what it held). */
  const reconciledPast = async (position: string): Promise<boolean> => {
    const { rows } = await db.query<{ past: boolean }>(
      `SELECT position >= $1::bigint AS past FROM webhook_dispatcher.event_log_cursors
        WHERE log = 'payment.event-log.read.v1'`,
      [position],
    );
    return rows[0]?.past === true;
  };

  const deliveriesOf = async (eventId: string): Promise<number> =>
    Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM webhook_dispatcher.deliveries WHERE event_id = $1`,
          [eventId],
        )
      ).rows[0]!.n,
    );

  const received = (eventId: string) =>
    live.receiver.deliveries.filter((hook) => (JSON.parse(hook.body) as { id: string }).id === eventId);

  const recordedFromTheLog = (eventId: string) =>
    jsonLogLines(live.stack).filter(
      (line) =>
        line.msg === 'event recorded from its owner log: the broker had not brought it' &&
        line.event_id === eventId,
    );

  test('a payment.confirmed the broker drops on its way to the dispatcher reaches the webhook anyway, once', async () => {
    const bindAgain = await withoutEventBinding(
      live.stack.env.config,
      'webhook-dispatcher',
      paymentConfirmed,
    );
    let event: LoggedEvent;
    try {
      const paymentId = await paidPayment();
      event = await waitFor(() => confirmedEvent(paymentId), { what: 'the payment.confirmed event' });
      await waitFor(() => received(event.payload.event_id).length > 0, {
        timeoutMs: EFFECT_MS,
        what: 'the lost payment.confirmed at the webhook',
      });
    } finally {
      await bindAgain();
    }
    await waitFor(() => reconciledPast(event.position), {
      timeoutMs: EFFECT_MS,
      what: 'a pass past the event',
    });

    expect(recordedFromTheLog(event.payload.event_id)).toHaveLength(1);
    expect(received(event.payload.event_id)).toHaveLength(1);
    expect(await deliveriesOf(event.payload.event_id)).toBe(1);

    // The broker brings the same event late (a retry, a replay): the dispatcher handles it and makes no delivery.
    await publishAndAwaitHandling(live.stack.env.config, paymentConfirmed, event.payload, {
      messageId: event.envelopeId,
      toService: 'webhook-dispatcher',
    });
    expect(await deliveriesOf(event.payload.event_id)).toBe(1);
  });

  test('an event the broker brought is delivered once when the reconciliation reads it too', async () => {
    const paymentId = await paidPayment();
    const event = await waitFor(() => confirmedEvent(paymentId), { what: 'the payment.confirmed event' });
    await waitFor(() => received(event.payload.event_id).length > 0, {
      timeoutMs: EFFECT_MS,
      what: 'the payment.confirmed at the webhook',
    });
    await waitFor(() => reconciledPast(event.position), {
      timeoutMs: EFFECT_MS,
      what: 'a pass past the event',
    });

    expect(recordedFromTheLog(event.payload.event_id)).toEqual([]);
    expect(received(event.payload.event_id)).toHaveLength(1);
    expect(await deliveriesOf(event.payload.event_id)).toBe(1);
  });
});
