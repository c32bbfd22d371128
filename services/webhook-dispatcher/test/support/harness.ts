import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import {
  createWebhook,
  newPublicId,
  paymentCreated,
  type MessageDefinition,
  type PaymentEventPayload,
  type PaymentRecord,
  type Webhook,
  type WebhookEventName,
} from '@gateway/contracts';
import { createEnvelope, type Broker } from '@gateway/messaging';
import type { ServiceRuntime } from '@gateway/service-runtime';
import {
  aPaymentEvent,
  connectTestClient,
  createTestPki,
  isolatedEnvironment,
  publishAndAwaitHandling,
  waitFor,
  type IsolatedEnvironment,
  type TestPki,
} from '@gateway/testkit';
import { loadWebhookDispatcherConfig } from '../../src/config';
import { startWebhookDispatcher } from '../../src/main';
import { answers, Receiver } from './receiver';

/**
 * One test file's world: a private database and broker prefix, a test CA, an HTTPS receiver, a client broker, and
 * dispatchers started with per-test settings (stopped by `stopDispatchers`).
 */
export class Harness {
  readonly running: ServiceRuntime[] = [];
  private declaredBy?: ServiceRuntime;

  private constructor(
    readonly env: IsolatedEnvironment,
    readonly pki: TestPki,
    readonly receiver: Receiver,
    readonly client: Broker,
    private readonly pool: Pool,
  ) {}

  static async create(label: string): Promise<Harness> {
    const env = await isolatedEnvironment(label);
    const pki = createTestPki();
    const receiver = await Receiver.start(pki.server);
    const client = await connectTestClient(env.config, `${label}-test-client`);
    const pool = new Pool({
      connectionString: env.config.DATABASE_URL,
      options: '-c search_path=webhook_dispatcher',
      max: 2,
    });
    return new Harness(env, pki, receiver, client, pool);
  }

  /** Starts a dispatcher; settings are environment variables, validated like in production. */
  async startDispatcher(settings: Record<string, string> = {}): Promise<ServiceRuntime> {
    const config = loadWebhookDispatcherConfig({
      ...this.env.config,
      DELIVERY_POLL_INTERVAL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE: '200ms,400ms',
      WEBHOOK_TIMEOUT_MS: '2000',
      DELIVERY_LEASE_MS: '5000',
      WORKER_ID: `worker-${randomBytes(3).toString('hex')}`,
      ...settings,
    });
    const runtime = await startWebhookDispatcher(config, { trustedCa: this.pki.caPem });
    this.running.push(runtime);
    this.declaredBy ??= runtime;
    return runtime;
  }

  async stopDispatcher(runtime: ServiceRuntime): Promise<void> {
    this.running.splice(this.running.indexOf(runtime), 1);
    await runtime.stop();
  }

  async stopDispatchers(): Promise<void> {
    await Promise.all([...this.running].map((runtime) => this.stopDispatcher(runtime)));
  }

  async close(): Promise<void> {
    await this.stopDispatchers();
    await this.declaredBy?.broker.deleteDeclaredTopology();
    await this.client.close();
    await this.pool.end();
    await this.receiver.stop();
    await this.env.database.drop();
    this.pki.remove();
  }

  async createWebhook(
    businessId: string,
    url: string,
    events: WebhookEventName[] = [
      'payment.created',
      'payment.confirmed',
      'payment.expired',
      'payment.failed',
    ],
  ): Promise<Webhook & { secret: string }> {
    const reply = await this.client.request(
      createWebhook,
      { business_id: businessId, url, events },
      { timeoutMs: 5000 },
    );
    if (!reply.ok) throw new Error(`webhook.create.v1 refused: ${reply.error.code} ${reply.error.message}`);
    return reply.result;
  }

  /** Publishes a payment event as the payment service would; returns the envelope id and payload. */
  async publishPaymentEvent(
    definition: MessageDefinition<PaymentEventPayload>,
    businessId: string,
    payment: Partial<PaymentRecord> = {},
  ): Promise<{ messageId: string; payload: PaymentEventPayload }> {
    const payload = aPaymentEvent({ business_id: businessId, ...payment });
    const envelope = createEnvelope(definition, payload);
    await this.client.publishEnvelope(envelope, {});
    return { messageId: envelope.id, payload };
  }

  /**
   * Publishes a payment event and resolves once the dispatcher has handled this very delivery (a duplicate or a
   * redelivery leaves no row to wait for); answers what the handler returned.
   */
  deliverPaymentEvent(
    definition: MessageDefinition<PaymentEventPayload>,
    payload: PaymentEventPayload,
    messageId?: string,
  ): Promise<unknown> {
    return publishAndAwaitHandling(this.env.config, definition, payload, { messageId });
  }

  /** Whether the dispatcher has kept the event; its deliveries, if any, were made in the same transaction. */
  async eventKept(eventId: string): Promise<boolean> {
    return (await this.query('SELECT 1 FROM events WHERE id = $1', [eventId])).length > 0;
  }

  /**
   * Makes a delivery to a webhook of its own and waits until the worker has sent and recorded it: the claim that took
   * it looked at every delivery due by this call, so afterwards a test may assert that one of those was not sent.
   */
  async workerCaughtUp(): Promise<void> {
    const businessId = newPublicId('biz');
    await this.createWebhook(
      businessId,
      this.receiver.route(`/caught-up/${newPublicId('p')}`, answers.status(200)),
    );
    const { payload } = await this.publishPaymentEvent(paymentCreated, businessId);
    await waitFor(
      async () => {
        const [row] = await this.query<{ status: string }>(
          'SELECT status FROM deliveries WHERE event_id = $1',
          [payload.event_id],
        );
        return row?.status === 'delivered';
      },
      { what: 'the delivery worker to catch up' },
    );
  }

  /** Rows of the dispatcher's tables, read (or arranged) directly. */
  async query<T>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, parameters)).rows as T[];
  }
}
