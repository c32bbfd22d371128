import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import {
  createWebhook,
  newPublicId,
  type MessageDefinition,
  type PaymentEventPayload,
  type PaymentRecord,
  type Webhook,
  type WebhookEventName,
} from '@gateway/contracts';
import { createEnvelope, type Broker, type ServiceRuntime } from '@gateway/messaging';
import {
  connectTestClient,
  createTestPki,
  isolatedEnvironment,
  type IsolatedEnvironment,
  type TestPki,
} from '@gateway/testkit';
import { loadWebhookDispatcherConfig } from '../../src/config';
import { startWebhookDispatcher } from '../../src/main';
import { Receiver } from './receiver';

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
    const payload = paymentEventPayload(businessId, payment);
    const envelope = createEnvelope(definition, payload);
    await this.client.publishEnvelope(envelope, {});
    return { messageId: envelope.id, payload };
  }

  /** Rows of the dispatcher's tables, read (or arranged) directly. */
  async query<T>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, parameters)).rows as T[];
  }
}

export function paymentEventPayload(
  businessId: string,
  payment: Partial<PaymentRecord> = {},
): PaymentEventPayload {
  return {
    event_id: newPublicId('evt'),
    business_id: businessId,
    occurred_at: new Date().toISOString(),
    payment: {
      payment_id: newPublicId('pay'),
      transaction_id: null,
      business_id: businessId,
      method: 'pix',
      status: 'processing',
      amount_centavos: 5050,
      fee_centavos: 150,
      external_id: 'txid0123456789abcdef0123456789',
      failure_code: null,
      failure_reason: null,
      metadata: '{"order":7}',
      created_at: '2025-01-15T12:00:00.000Z',
      updated_at: '2025-01-15T12:00:00.000Z',
      ...payment,
    },
  };
}
