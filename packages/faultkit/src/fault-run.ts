import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DATABASE_POOL_SIZE } from '@gateway/config';
import { webhookEventNames } from '@gateway/contracts';
import {
  startHttpProxy,
  createTestPki,
  type TestPki,
  letTimePass,
  waitFor,
  infrastructureUrls,
} from '@gateway/testkit-core';
import {
  jsonLogLines,
  startStack,
  type LoggedMessage,
  type RunningStack,
  WebhookReceiver,
} from '@gateway/testkit';
import { differencesWithTheRails } from './books-vs-rails';
import { DatabaseFaults } from './database-faults';
import { DatabaseProxy } from './database-proxy';
import type { Fault, FaultTargets } from './faults';
import {
  checkInvariants,
  describeParkedMessages,
  formatReport,
  invariantNames,
  type InvariantReport,
  type LoadWebhook,
} from './invariants';
import { LoadGenerator, type LoadBusiness, type LoadOptions } from './load';
import { PrivateBroker } from './private-broker';
import { PrivateRedis } from './private-redis';
import { FaultTimeline } from './timeline';

/** Timeouts the run gives the stack, short enough for faults to outlast them within minutes. */
export const faultRunTiming = {
  rpcTimeoutMs: 5_000,
  webhookTimeoutMs: 3_000,
  deliveryLeaseMs: 8_000,
  /** The launcher starts a killed process again after this long. */
  restartAfterMs: 2_000,
};

/** Retries a delivery for about two minutes, so a receiver that misbehaves for seconds costs seconds. */
const WEBHOOK_RETRY_SCHEDULE = ['1s', '2s', '4s', '8s', ...Array<string>(12).fill('10s')].join(',');

/** The stack's output of each run is kept here (git-ignored), for the diagnosis of a failed invariant. */
const logDirectory = join(__dirname, '../../../artifacts/faults');

/** How long the stack gets to be ready again after a fault is given back. */
const RECOVERY_TIMEOUT_MS = 90_000;
/** How long the books may take to agree with the rails once the run has settled (nothing left in flight). */
const BOOKS_VS_RAILS_TIMEOUT_MS = 60_000;

export interface FaultRunOptions {
  load: LoadOptions;
  /** After the load stops, how long the system gets to bring every payment and webhook to its end. */
  settleTimeoutMs: number;
  /** Pause after the stack is ready again, before the next fault. */
  gapMs: number;
  /**
   * The private broker's nodes: 1 (the default) or a cluster, whose every address the services get in AMQP_URLS (its
   * quorum queues then have a member on each node).
   */
  brokerNodes?: number;
  log: (line: string) => void;
  /** How the stack is started, where a run differs from the others (the rolling upgrade's). */
  stack?: {
    /** The checkout whose launcher and services run the stack (default: this one). */
    root?: string;
    /** Launcher variables over the run's own. */
    env?: Record<string, string>;
    /**
     * The clients (and the run's own checks) reach the gateway through a balancer that can be pointed at another
     * gateway process (`targets.gatewayBalancer`), as a Kubernetes Service follows its pods.
     */
    balancedGateway?: boolean;
    /**
     * The events the businesses' webhooks subscribe to (default: every public event of this release); a stack of an
     * older release is subscribed to the events it knows.
     */
    webhookEvents?: readonly string[];
  };
}

export interface FaultRunResult {
  report: InvariantReport;
  /**
   * Failed messages the services sent to a delay queue to be tried again, as their metrics count them when the run
   * ends (a process killed meanwhile took its count with it): evidence that a fault struck work under way.
   */
  brokerRetries: number;
  /**
   * Deliveries the broker made again because a consumer had not acked the first (it died, lost its connection or
   * handed the message back), counted the same way.
   */
  brokerRedeliveries: number;
  /** The messages delivered again, as the processes that got them logged them (`message delivered again`). */
  redelivered: LoggedMessage[];
  /** The failed messages sent to be tried again, as the processes that failed them logged them. */
  retried: LoggedMessage[];
  text: string;
  /** Where the stack's output was written. */
  logFile: string;
}

/**
 * The whole stack on free ports with a broker, a Redis and a database of its own, two businesses whose webhooks
 * point at a local HTTPS receiver, and steady payment traffic; faults are injected one after another, then the
 * invariants are checked against the databases, the broker and the receiver.
 */
export class FaultRun {
  readonly timeline = new FaultTimeline();
  private readonly notRecovered: string[] = [];

  private constructor(
    private readonly options: FaultRunOptions,
    private readonly pki: TestPki,
    readonly targets: FaultTargets,
    private readonly load: LoadGenerator,
    private readonly webhooks: LoadWebhook[],
  ) {}

  static async start(options: FaultRunOptions): Promise<FaultRun> {
    const broker = await PrivateBroker.start({ nodes: options.brokerNodes ?? 1 });
    const redis = await PrivateRedis.start().catch(async (err: unknown) => {
      await broker.stop();
      throw err;
    });
    const pki = createTestPki();
    const receiver = await WebhookReceiver.start(pki.server);
    const postgres = new URL(infrastructureUrls().databaseUrl);
    const proxy = await DatabaseProxy.start({ host: postgres.hostname, port: Number(postgres.port || 5432) });
    // The PSP simulator's port is chosen as the stack starts: the proxy reads it at each request.
    let pspUrl = '';
    const psp = await startHttpProxy(() => pspUrl);
    let gatewayUrl = '';
    const balancer = options.stack?.balancedGateway ? await startHttpProxy(() => gatewayUrl) : undefined;
    let stack: RunningStack | undefined;
    try {
      options.log(
        `private RabbitMQ ${broker.nodes.map((node) => `${node.node} (${node.url})`).join(', ')}, Redis ${redis.url}; starting the stack`,
      );
      stack = await startStack(
        {
          ...(broker.nodes.length > 1 ? { AMQP_URLS: broker.urls.join(',') } : { AMQP_URL: broker.url }),
          REDIS_URL: redis.url,
          NODE_EXTRA_CA_CERTS: pki.caPath,
          RESTART_EXITED_AFTER_MS: String(faultRunTiming.restartAfterMs),
          RPC_TIMEOUT_MS: String(faultRunTiming.rpcTimeoutMs),
          WEBHOOK_TIMEOUT_MS: String(faultRunTiming.webhookTimeoutMs),
          DELIVERY_LEASE_MS: String(faultRunTiming.deliveryLeaseMs),
          WEBHOOK_RETRY_SCHEDULE,
          // The load acts as the operator too (returns, assignments, adjustments), far more often than a person does.
          ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
          // Reconciled on demand once the run settles (the books against the rails), with a second of grace.
          RECONCILIATION_INTERVAL_SECONDS: '0',
          RECONCILIATION_GRACE_SECONDS: '1',
          // A refund or an operator's return whose request or outcome a fault lost is asked of its rail again within
          // the run's settling time.
          REFUND_RESEND_AFTER_SECONDS: '20',
          // The production pool: the fault suite runs alone (one jest worker), and its timings were measured with it.
          DATABASE_POOL_SIZE: String(DEFAULT_DATABASE_POOL_SIZE),
          ...options.stack?.env,
        },
        {
          databaseUrlForServices: (url) => proxy.urlFor(url),
          pspUrlForServices: (url) => {
            pspUrl = url;
            return psp.url;
          },
          root: options.stack?.root,
        },
      );
      gatewayUrl = stack.gatewayUrl;
      if (balancer) stack = { ...stack, gatewayUrl: balancer.url };
      const webhooks = await Promise.all(
        ['loja-a', 'loja-b'].map((label) =>
          openBusiness(stack!, receiver, label, options.stack?.webhookEvents ?? webhookEventNames),
        ),
      );
      const load = new LoadGenerator(
        stack.gatewayUrl,
        webhooks.map((w) => w.business),
        options.load,
        { adminToken: stack.adminToken, pspUrl: stack.pspUrl, databaseUrl: stack.env.database.url },
      );
      const database = new DatabaseFaults(stack.env.database.url, proxy);
      const gatewayBalancer = balancer && {
        url: balancer.url,
        pointAt: (url: string) => {
          gatewayUrl = url;
        },
        close: () => balancer.close(),
      };
      const targets = { stack, broker, redis, receiver, database, proxy, psp, load, gatewayBalancer };
      return new FaultRun(options, pki, targets, load, webhooks);
    } catch (err) {
      await stack?.stop();
      await Promise.all([
        receiver.stop(),
        proxy.stop(),
        psp.close(),
        balancer?.close(),
        redis.stop(),
        broker.stop(),
      ]);
      pki.remove();
      throw err;
    }
  }

  /** Starts the traffic and waits until it flows (a few payments made). */
  async startLoad(): Promise<void> {
    this.load.start();
    await waitFor(() => this.load.created.length >= 4, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'the first payments of the load',
    });
  }

  /** Injects one fault, waits until the stack is ready again, and pauses before the next. */
  async inject(fault: Fault): Promise<void> {
    this.options.log(`fault: ${fault.name}`);
    try {
      await this.timeline.record(fault, () => fault.inject(this.targets));
      await waitFor(
        async () =>
          (await fetch(`${this.targets.stack.gatewayUrl}/readyz`, { signal: AbortSignal.timeout(3000) })).ok,
        { timeoutMs: RECOVERY_TIMEOUT_MS, intervalMs: 500, what: 'the stack to be ready again' },
      );
    } catch (err) {
      this.notRecovered.push(`${fault.name}: ${String(err)}`);
      this.options.log(`  not recovered: ${String(err)}`);
    }
    await letTimePass(this.options.gapMs);
  }

  /** Stops the load, gives the system time to finish every payment and webhook, and checks the invariants. */
  async finish(): Promise<FaultRunResult> {
    this.options.log('stopping the load; waiting for the system to settle');
    await this.load.stop();
    const sources = {
      databaseUrl: this.targets.stack.env.database.url,
      broker: this.targets.broker,
      load: this.load,
      receiver: this.targets.receiver,
      webhooks: this.webhooks,
      timeline: this.timeline,
    };
    const settling: string[] = [
      invariantNames.paid,
      invariantNames.oneConfirmation,
      invariantNames.delivered,
      invariantNames.everyChangeDelivered,
      invariantNames.noUnsent,
      invariantNames.oneJournal,
      invariantNames.onePayoutJournal,
      invariantNames.payoutsSettled,
      invariantNames.oneRefundJournal,
      invariantNames.refundsSettled,
      invariantNames.oneSuspenseJournal,
      invariantNames.heldFundsSettled,
      invariantNames.oneAdjustment,
      invariantNames.booksBalance,
      // A cycle whose payment was not recorded before its subscription ended is recorded by the payment service's
      // next scheduler pass; that it never charges twice holds at any time.
      invariantNames.cycleOnce,
      invariantNames.cyclesSettled,
      invariantNames.atTheirEnd,
    ];
    const settled = await waitFor(
      async () => {
        // Nothing left in flight: a message waiting in a delay queue (a retry of up to two minutes after an outage,
        // say a late PIX's funds) would reach the books only after the books were compared with the rails.
        const inFlight = (await this.targets.broker.queueDepths()).filter(
          (queue) => !queue.name.endsWith('.parking') && queue.messages > 0,
        );
        if (inFlight.length > 0) return undefined;
        const report = await checkInvariants(sources);
        return report.invariants.every((i) => !settling.includes(i.name) || i.violations.length === 0)
          ? report
          : undefined;
      },
      { timeoutMs: this.options.settleTimeoutMs, intervalMs: 2_000, what: 'the system to settle' },
    ).catch(() => undefined);
    const checked = settled ?? (await checkInvariants(sources));
    const report: InvariantReport = {
      figures: checked.figures,
      invariants: [
        ...checked.invariants,
        {
          name: invariantNames.booksMatchRails,
          violations: await differencesWithTheRails(this.targets.stack, BOOKS_VS_RAILS_TIMEOUT_MS),
        },
        { name: invariantNames.recovered, violations: this.notRecovered },
      ],
    };
    const parkedQueues = report.invariants.find((i) => i.name === invariantNames.noParked)!.violations.length
      ? (await this.targets.broker.queueDepths())
          .filter((q) => q.name.endsWith('.parking'))
          .map((q) => q.name)
      : [];
    const parked = await describeParkedMessages(this.targets.broker.url, parkedQueues);
    mkdirSync(logDirectory, { recursive: true });
    const logFile = join(logDirectory, `stack-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
    writeFileSync(logFile, this.targets.stack.logs.join(''));
    const retriedCount = await sumOfCounter(this.targets.stack, 'broker_messages_retried_total');
    const redeliveredCount = await sumOfCounter(this.targets.stack, 'broker_messages_redelivered_total');
    const brokerRetries = retriedCount.total;
    const brokerRedeliveries = redeliveredCount.total;
    const where = (counted: { series: string[] }) =>
      counted.series.length > 0 ? ` (${counted.series.join(', ')})` : '';
    const text =
      `${formatReport(report, this.timeline, parked)}\n  messages retried through the delay queues: ${brokerRetries}` +
      `${where(retriedCount)}\n  messages redelivered by the broker: ${brokerRedeliveries}${where(redeliveredCount)}` +
      `\nstack output: ${logFile}`;
    const logged = (msg: string): LoggedMessage[] =>
      jsonLogLines(this.targets.stack)
        .filter((line) => line.msg === msg)
        .map((line) => ({ queue: String(line.queue), message_id: String(line.message_id) }));
    return {
      report,
      brokerRetries,
      brokerRedeliveries,
      redelivered: logged('message delivered again'),
      retried: logged('handler failed, will be retried'),
      text,
      logFile,
    };
  }

  async stop(): Promise<void> {
    await this.load.stop();
    await this.targets.stack.stop();
    await Promise.all([
      this.targets.receiver.stop(),
      this.targets.proxy.stop(),
      this.targets.psp.close(),
      this.targets.gatewayBalancer?.close(),
      this.targets.redis.stop(),
      this.targets.broker.stop(),
    ]);
    this.pki.remove();
  }
}

/** A counter over every service's metrics (the gateway's on its API port): its sum and the series that count. */
async function sumOfCounter(stack: RunningStack, name: string): Promise<{ total: number; series: string[] }> {
  let total = 0;
  const series: string[] = [];
  for (const [service, url] of [...Object.entries(stack.metricsUrls), ['api-gateway', stack.gatewayUrl]]) {
    const text = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })
      .then((response) => response.text())
      .catch(() => '');
    for (const match of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\d+)$`, 'gm'))) {
      const count = Number(match[2]);
      total += count;
      if (count > 0) series.push(`${service}${match[1] ?? ''} ${count}`);
    }
  }
  return { total, series };
}

/** The load's businesses' CNPJs (valid check digits), their payout accounts' keys. */
const PAYOUT_CNPJ: Record<string, string> = { 'loja-a': '11222333000181', 'loja-b': '12345678000195' };

async function openBusiness(
  stack: RunningStack,
  receiver: WebhookReceiver,
  label: string,
  subscribed: readonly string[],
): Promise<LoadWebhook> {
  const call = async (path: string, auth: Record<string, string>, body: unknown) => {
    const response = await fetch(`${stack.gatewayUrl}${path}`, {
      method: path.includes('/fee-rules/') || path.endsWith('/payout-account') ? 'PUT' : 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, string>;
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const admin = { authorization: `Bearer ${stack.adminToken}` };
  const created = await call('/admin/v1/businesses', admin, { name: `Loja ${label}` });
  const business: LoadBusiness = { label, businessId: created.business_id!, apiKey: created.api_key! };
  const fees = { percent_bps: 99, fixed_centavos: 0 };
  await call(`/admin/v1/businesses/${business.businessId}/fee-rules/pix`, admin, fees);
  await call(`/admin/v1/businesses/${business.businessId}/fee-rules/crypto`, admin, fees);
  // Where the load's payouts go: the business's own CNPJ key, as the operator registers it.
  const cnpj = PAYOUT_CNPJ[label] ?? PAYOUT_CNPJ['loja-a']!;
  await call(`/admin/v1/businesses/${business.businessId}/payout-account`, admin, {
    pix_key: cnpj,
    pix_key_type: 'cnpj',
    holder_document: cnpj,
  });
  const path = `/hooks/${label}`;
  // Every public event: each state change of the load's payments, refunds and payouts must reach it.
  const events = [...subscribed];
  const webhook = await call(
    '/v1/webhook',
    { 'x-api-key': business.apiKey },
    { url: receiver.url(path), events },
  );
  return { business, path, secret: webhook.secret!, events };
}
