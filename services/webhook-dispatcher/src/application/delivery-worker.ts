import type { DataSource } from 'typeorm';
import { PeriodicWorker } from '@gateway/messaging';
import {
  counter,
  histogram,
  inStoredTrace,
  outgoingTarget,
  SpanKind,
  SpanStatusCode,
  tracerOf,
  type Attributes,
  type Logger,
  type Span,
} from '@gateway/observability';
import { openSecret } from '@gateway/persistence';
import type { EndpointLimiter } from '../clients/endpoint-limiter';
import type { WebhookSender } from '../clients/http-sender';
import { classifyDeliveryResult, type DeliveryAttemptResult } from '../domain/delivery-outcome';
import { signedDeliveryHeaders } from '../domain/payload';
import { nextAttemptDelay, type RetrySchedule } from '../domain/retry-schedule';
import {
  cancelPendingDeliveries,
  claimDueDeliveries,
  disableWebhook,
  releaseDeliveryLease,
  renewDeliveryLease,
  storeAttempt,
  type ClaimedDelivery,
  type StoredAttempt,
} from '../persistence';

export interface DeliveryWorkerOptions {
  dataSource: DataSource;
  sender: WebhookSender;
  limiter: EndpointLimiter;
  /** Opens the sealed webhook secrets. */
  secretKey: Buffer;
  schedule: RetrySchedule;
  /** Written as the lease owner and on every attempt. */
  workerId: string;
  pollIntervalMs: number;
  /** How long a claimed delivery stays this worker's; longer than one attempt can take. */
  leaseMs: number;
  /**
   * Deliveries of one webhook claimed at once: more than the limiter lets through per origin, so the next attempt is
   * already claimed when a slot frees (sending never waits for a claim), and few enough that one busy webhook cannot
   * take every slot of the process.
   */
  maxPerWebhook: number;
  /** Deliveries in flight in this process. */
  maxInFlight: number;
  logger: Logger;
  random?: () => number;
}

const tracer = tracerOf('@gateway/webhook-dispatcher');

const attemptsTotal = counter('webhook_delivery_attempts_total', 'Webhook delivery attempts, by outcome', [
  'outcome',
]);
const attemptLatency = histogram(
  'webhook_delivery_attempt_duration_seconds',
  'Duration of one webhook delivery attempt',
  [],
  [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
);
const confirmedToDelivered = histogram(
  'webhook_confirmed_to_delivered_seconds',
  'Time from a payment confirmed to its payment.confirmed webhook delivered, by method (each webhook once)',
  ['method'],
  [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400],
);

/**
 * Sends due deliveries. Each poll claims due rows with a lease (FOR UPDATE SKIP LOCKED, so replicas never claim the
 * same row) and starts their attempts without waiting for them: a slow endpoint holds its own slots only.
 */
export class DeliveryWorker extends PeriodicWorker {
  /** Attempts claimed and not yet recorded (queued behind their origin's limit, or sending), with their delivery. */
  private readonly inFlight = new Map<Promise<void>, Pick<ClaimedDelivery, 'id' | 'webhook_id'>>();
  private readonly random: () => number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    super({ name: 'webhook-delivery-worker', intervalMs: options.pollIntervalMs, logger: options.logger });
    this.random = options.random ?? Math.random;
  }

  /**
   * Stops claiming, lets the attempts already sending finish and be recorded (each bounded by the timeout), and
   * hands back the leases of those not yet started.
   */
  override async stop(): Promise<void> {
    await super.stop();
    await Promise.allSettled([...this.inFlight.keys()]);
  }

  /** Claims what is due and starts its attempts (a nudge during a claim claims again at once). */
  protected override async pass(): Promise<void> {
    const claimed = await this.claim();
    for (const delivery of claimed) this.launch(delivery);
  }

  private launch(delivery: ClaimedDelivery): void {
    const attempt = this.attempt(delivery)
      .catch((err: unknown) =>
        // Unrecorded: the lease runs out and the delivery is attempted again (at least once).
        this.options.logger.error({ err, delivery_id: delivery.id }, 'delivery attempt failed'),
      )
      .finally(() => {
        this.inFlight.delete(attempt);
        // A slot came free: claim what waited for it without waiting for the next poll.
        this.nudge();
      });
    this.inFlight.set(attempt, { id: delivery.id, webhook_id: delivery.webhook_id });
  }

  private async claim(): Promise<ClaimedDelivery[]> {
    const capacity = this.options.maxInFlight - this.inFlight.size;
    if (capacity <= 0) return [];
    const perWebhook = new Map<string, number>();
    const held = [...this.inFlight.values()];
    for (const { webhook_id: webhookId } of held)
      perWebhook.set(webhookId, (perWebhook.get(webhookId) ?? 0) + 1);
    const saturated = [...perWebhook].filter(([, n]) => n >= this.options.maxPerWebhook).map(([id]) => id);
    // What this process holds is never claimed again, even once its lease ran out while it queued behind a slow
    // origin.
    return claimDueDeliveries(this.options.dataSource.manager, {
      workerId: this.options.workerId,
      leaseMs: this.options.leaseMs,
      skipWebhooks: saturated,
      maxPerWebhook: this.options.maxPerWebhook,
      limit: capacity,
      held: held.map((delivery) => delivery.id),
    });
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    await this.options.limiter.run(delivery.url, async () => {
      if (!this.isRunning) {
        // Stopping: an attempt still queued behind a busy endpoint goes back to the pool for another replica.
        await releaseDeliveryLease(this.options.dataSource.manager, delivery.id, this.options.workerId);
        return;
      }
      // Right before sending: the lease restarts (time queued for a slot does not count) and a delivery cancelled
      // meanwhile (webhook deleted or disabled) is never sent.
      const { dataSource, workerId, leaseMs } = this.options;
      if (!(await renewDeliveryLease(dataSource.manager, delivery.id, workerId, leaseMs))) return;
      await inStoredTrace(
        tracer,
        `webhook ${delivery.event_type}`,
        delivery.trace_context,
        { kind: SpanKind.CLIENT, attributes: attemptAttributes(delivery) },
        (span) => this.send(delivery, span),
      );
    });
  }

  /** One attempt: signs and sends the delivery, then records what the endpoint answered. */
  private async send(delivery: ClaimedDelivery, span: Span): Promise<void> {
    const secret = openSecret(delivery.secret_sealed, this.options.secretKey);
    const previousSecret =
      delivery.previous_secret_sealed === null
        ? null
        : openSecret(delivery.previous_secret_sealed, this.options.secretKey);
    const body = Buffer.from(delivery.body, 'utf8');
    const attemptedAt = new Date();
    const result = await this.options.sender.send({
      url: delivery.url,
      body,
      headers: signedDeliveryHeaders({
        body,
        eventId: delivery.event_id,
        timestampSeconds: Math.floor(attemptedAt.getTime() / 1000),
        secret,
        previousSecret,
      }),
    });
    describeResult(span, result);
    await this.record(delivery, attemptedAt, result);
  }

  /** Stores the attempt and moves the delivery on: delivered, rescheduled, dead-lettered, or its webhook disabled. */
  private async record(
    delivery: ClaimedDelivery,
    attemptedAt: Date,
    result: DeliveryAttemptResult,
  ): Promise<void> {
    const outcome = classifyDeliveryResult(result, Date.now());
    const attemptNumber = delivery.attempt_count + 1;
    attemptLatency.observe(result.latencyMs / 1000);
    const attempt: StoredAttempt = {
      deliveryId: delivery.id,
      attemptedAt,
      attemptNumber,
      statusCode: result.kind === 'response' ? result.status : null,
      latencyMs: result.latencyMs,
      responseBody: result.kind === 'response' ? result.bodySnippet : null,
      error: result.kind === 'error' ? `${result.error}: ${result.message}` : null,
    };
    const { dataSource, workerId } = this.options;
    if (outcome.kind === 'success') {
      await storeAttempt(dataSource.manager, attempt, workerId, 'delivered', null);
      attemptsTotal.inc({ outcome: 'delivered' });
      if (delivery.event_type === 'payment.confirmed') observeConfirmedToDelivered(delivery.body);
      return;
    }
    if (outcome.kind === 'disable_webhook') {
      // 410 Gone: the receiver says the endpoint no longer exists, so it gets nothing more.
      await dataSource.transaction(async (manager) => {
        await storeAttempt(manager, attempt, workerId, 'dead', null);
        await disableWebhook(manager, delivery.webhook_id);
        await cancelPendingDeliveries(manager, delivery.webhook_id);
        this.options.logger.info(
          { webhook_id: delivery.webhook_id },
          'webhook disabled: the receiver answered 410 Gone',
        );
      });
      attemptsTotal.inc({ outcome: 'webhook_disabled' });
      return;
    }
    const delayMs = nextAttemptDelay(attemptNumber, this.options.schedule, {
      retryAfterSeconds: outcome.retryAfterSeconds,
      random: this.random,
    });
    await storeAttempt(dataSource.manager, attempt, workerId, delayMs === null ? 'dead' : 'pending', delayMs);
    attemptsTotal.inc({ outcome: delayMs === null ? 'dead_lettered' : 'retry_scheduled' });
  }
}

/** The body of a payment.confirmed delivery says when the payment was confirmed (`created_at`) and its method. */
function observeConfirmedToDelivered(body: string): void {
  const event = JSON.parse(body) as { created_at: string; data: { method: string } };
  confirmedToDelivered.observe(
    { method: event.data.method },
    Math.max(0, (Date.now() - Date.parse(event.created_at)) / 1000),
  );
}

/**
 * An attempt as its span shows it: the delivery, and the endpoint's host (never its path or query: either may hold a
 * token). A URL that does not parse is the sender's to refuse, and the attempt records why.
 */
function attemptAttributes(delivery: ClaimedDelivery): Attributes {
  return {
    'http.request.method': 'POST',
    ...outgoingTarget(delivery.url),
    'gateway.webhook.id': delivery.webhook_id,
    'gateway.webhook.delivery_id': delivery.id,
    'gateway.webhook.event_id': delivery.event_id,
    'gateway.webhook.attempt': delivery.attempt_count + 1,
  };
}

/** What the endpoint answered; anything but a 2xx marks the attempt span as failed. */
function describeResult(span: Span, result: DeliveryAttemptResult): void {
  if (result.kind === 'response') {
    span.setAttribute('http.response.status_code', result.status);
    if (result.status >= 300)
      span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${result.status}` });
    return;
  }
  span.setAttribute('error.type', result.error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
}
