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
  REPLY_TIMEOUT_MS,
  waitFor,
  type IsolatedEnvironment,
  type ServiceTestBed,
  type TestPki,
} from '@gateway/testkit';
import { loadWebhookDispatcherConfig } from '../../src/config';
import { startWebhookDispatcher } from '../../src/main';
import { type Answer, answers, Receiver } from './receiver';

/** A path of its own on the receiver, so a test's assertions see only its requests. */
export const uniquePath = (label: string): string => `/${label}/${newPublicId('p')}`;

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

  /** Sends a command from `client` and answers its reply, as a service test bed's `request` does. */
  readonly request: ServiceTestBed<ServiceRuntime>['request'] = (definition, payload, options = {}) =>
    this.client.request(definition, payload, { timeoutMs: REPLY_TIMEOUT_MS, ...options });

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
    // An idle connection the server ends (a fault, the database dropped) is only removed; queries still reject.
    pool.on('error', () => undefined);
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
    // The client first: it answers as the payment service and the ledger, and would declare their queues again.
    await this.client.close();
    await this.declaredBy?.broker.deleteDeclaredTopology(this.env.config.AMQP_URL);
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
    const reply = await this.request(createWebhook, { business_id: businessId, url, events });
    if (!reply.ok) throw new Error(`webhook.create.v1 refused: ${reply.error.code} ${reply.error.message}`);
    return reply.result;
  }

  /**
   * A new business with a webhook (for the payment events `createWebhook` subscribes by default) to a path of its own
   * on the receiver, whose requests get the answers of `script` (see `Receiver.route`).
   */
  async businessWithEndpoint(
    label: string,
    ...script: Answer[]
  ): Promise<{ businessId: string; path: string; webhook: Webhook & { secret: string } }> {
    const businessId = newPublicId('biz');
    const path = uniquePath(label);
    const webhook = await this.createWebhook(businessId, this.receiver.route(path, ...script));
    return { businessId, path, webhook };
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

  /** Whether the dispatcher has kept the event; its deliveries, if any, were made by the same statement. */
  async eventKept(eventId: string): Promise<boolean> {
    return (await this.query('SELECT 1 FROM events WHERE id = $1', [eventId])).length > 0;
  }

  /**
   * Makes a delivery to a webhook of its own and waits until the worker has sent and recorded it: the claim that took
   * it looked at every delivery due by this call, so afterwards a test may assert that one of those was not sent.
   */
  async workerCaughtUp(): Promise<void> {
    const { businessId } = await this.businessWithEndpoint('caught-up', answers.status(200));
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
