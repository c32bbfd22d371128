import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { catalog, readPaymentChanges, type CommandDefinition, type ServiceName } from '@gateway/contracts';
import { CommandError, type Broker, type MessageContext } from '@gateway/messaging';
import { serviceTestBed, startedForTheseTests, type IsolatedEnvironment } from '@gateway/testkit';
import type { ApiGatewayConfig } from '../../src/config';
import { startApiGateway, type RunningApiGateway } from '../../src/main';

export const ADMIN_TOKEN = 'test-admin-token-for-the-gateway';

type AnyCommand = CommandDefinition<any, any>;

/** Every command the catalog says `service` handles: the fakes answer exactly what the real service would take. */
function commandsOf(service: ServiceName): AnyCommand[] {
  return [...catalog.values()].filter(
    (definition): definition is AnyCommand =>
      definition.kind === 'command' && definition.handledBy === service,
  );
}

type FakeHandler<P, R> = (payload: P, context: MessageContext) => Promise<R>;

/**
 * Stand-ins for the downstream services on the test's broker prefix: each test says how a command is answered,
 * and every command received is recorded, so the gateway's HTTP behaviour is tested exactly.
 */
export class FakeServices {
  readonly received: Array<{ name: string; payload: unknown; messageId: string }> = [];
  private readonly handlers = new Map<string, FakeHandler<unknown, unknown>>();

  constructor(readonly broker: Broker) {}

  /** Answers on `broker`, which its owner cleans up (a test bed's client). */
  static async start(broker: Broker, services: ServiceName[]): Promise<FakeServices> {
    const fakes = new FakeServices(broker);
    for (const service of services) {
      const handlers = broker.handlers(service);
      for (const definition of commandsOf(service))
        handlers.handle(definition, (payload, context) => fakes.dispatch(definition.name, payload, context));
      await handlers.consume();
    }
    return fakes;
  }

  on<P, R>(definition: CommandDefinition<P, R>, handler: FakeHandler<P, R>): void {
    this.handlers.set(definition.name, handler as FakeHandler<unknown, unknown>);
  }

  receivedOf(definition: AnyCommand): unknown[] {
    return this.received.filter((entry) => entry.name === definition.name).map((entry) => entry.payload);
  }

  private async dispatch(name: string, payload: unknown, context: MessageContext): Promise<unknown> {
    // The gateway's background reads of the payment change feed are no request's doing: not recorded.
    if (name !== readPaymentChanges.name)
      this.received.push({ name, payload, messageId: context.envelope.id });
    const handler = this.handlers.get(name);
    if (!handler) throw new CommandError('INTERNAL_ERROR', `no fake answer for ${name}`);
    return handler(payload, context);
  }
}

/** A business created through the operator API, with its first key. */
export interface Business {
  business_id: string;
  api_key: string;
  key_prefix: string;
  key_purpose: string;
}

/**
 * The page command a list route sends its service on `merchant`'s behalf: the list's parent (`{ payment_id }`...,
 * `{}` for a list of the business's own) and the page asked for.
 */
export function expectedPageCommand(
  merchant: Business,
  parent: Record<string, string>,
  page: { limit: number; starting_after: string | null },
) {
  return { business_id: merchant.business_id, ...parent, ...page };
}

export interface Harness {
  env: IsolatedEnvironment;
  gateway: RunningApiGateway;
  fakes: FakeServices;
  config: ApiGatewayConfig;
  http: ReturnType<typeof request>;
  /** A new business through the operator API, with its first key. */
  newBusiness(name?: string): Promise<Business>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The downstream services the fakes stand in for (payment, checkout, customer and webhook-dispatcher unless told). */
  services?: ServiceName[];
  config?: Partial<ApiGatewayConfig>;
}

export function gatewayConfig(env: IsolatedEnvironment, overrides: Partial<ApiGatewayConfig> = {}) {
  const config: ApiGatewayConfig = {
    ...env.config,
    PORT: 0,
    ADMIN_TOKEN,
    RPC_TIMEOUT_MS: 2000,
    RATE_LIMIT_PER_MINUTE: 100_000,
    DASHBOARD_RATE_LIMIT_PER_MINUTE: 100_000,
    CHECKOUT_RATE_LIMIT_PER_MINUTE: 100_000,
    ADMIN_RATE_LIMIT_PER_MINUTE: 100_000,
    IDEMPOTENCY_RESPONSE_KEY: randomBytes(32).toString('base64'),
    IDEMPOTENCY_PURGE_INTERVAL_MS: 60_000,
    PUBLIC_BASE_URL: 'https://pay.example.com',
    TRUST_PROXY: false,
    PAYMENT_COPY_MAX_AGE_MS: 30_000,
    // The fakes serve no change feed unless a test does (which sets its own interval): one failing read a minute.
    PAYMENT_COPY_CATCH_UP_INTERVAL_MS: 60_000,
    ...overrides,
  };
  return config;
}

/** Deletes the Redis keys a test file created under its prefix. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/** A gateway on a private database, broker prefix and Redis prefix, with fake downstream services. */
export async function startHarness(label: string, options: HarnessOptions = {}): Promise<Harness> {
  let config!: ApiGatewayConfig;
  let gateway!: RunningApiGateway;
  const bed = await serviceTestBed(label, async (env, cleanup) => {
    cleanup.afterStop(() => deleteRedisKeys(env.config.REDIS_URL, env.config.REDIS_PREFIX));
    config = gatewayConfig(env, options.config);
    gateway = await startApiGateway(config);
    return gateway.runtime;
  });
  // The fakes answer on the bed's client broker: the gateway's HTTP API is the only way in.
  const fakes = await FakeServices.start(
    bed.client,
    options.services ?? ['payment', 'checkout', 'customer', 'webhook-dispatcher'],
  );
  const http = request(gateway.url);
  return {
    env: bed.env,
    gateway,
    fakes,
    config,
    http,
    async newBusiness(name = 'Loja Teste') {
      const response = await http
        .post('/admin/v1/businesses')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ name });
      if (response.status !== 201) throw new Error(`business not created: ${response.status}`);
      return response.body as Business;
    },
    close: bed.close,
  };
}

/** A harness with the business its tests act as. */
export interface HarnessWithMerchant extends Harness {
  merchant: Business;
}

/**
 * A harness started before the enclosing describe's tests, with a business named `merchant` (or newBusiness's
 * default) for them to act as, and closed after them; read it inside tests and hooks.
 */
export function harnessWithMerchantForTheseTests(
  label: string,
  options: HarnessOptions & { merchant?: string } = {},
): HarnessWithMerchant {
  return startedForTheseTests(async () => {
    const harness = await startHarness(label, options);
    return { ...harness, merchant: await harness.newBusiness(options.merchant) };
  });
}
