import type { DataSource, EntityManager } from 'typeorm';
import { PeriodicTask } from '@gateway/messaging';
import {
  counter,
  histogram,
  inStoredTrace,
  SpanKind,
  SpanStatusCode,
  tracerOf,
  type Attributes,
  type Logger,
  type Span,
  type TraceHeaders,
} from '@gateway/observability';
import { classifyDeliveryResult, type DeliveryAttemptResult } from '../domain/delivery-outcome';
import { nextAttemptDelay, type RetrySchedule } from '../domain/retry-schedule';
import { openSecret } from '@gateway/persistence';
import type { EndpointLimiter } from './endpoint-limiter';
import type { WebhookSender } from './http-sender';
import { signedDeliveryHeaders } from './payload';

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

/** One attempt as it is stored. */
interface StoredAttempt {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  attemptNumber: number;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
}

interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  attempt_count: number;
  /** The trace of the event the delivery is for: every attempt is a span in it. */
  trace_context: TraceHeaders | null;
  url: string;
  secret_sealed: string;
  /** The secret a rotation replaced, only while its overlap lasts. */
  previous_secret_sealed: string | null;
}

const tracer = tracerOf('@gateway/webhook-dispatcher');

const attemptsTotal = counter('webhook_delivery_attempts_total', 'Webhook delivery attempts, by outcome', [
  'outcome',
]);
const attemptLatency = histogram(
  'webhook_delivery_attempt_seconds',
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

/** Only rows nobody holds: never leased, or whose lease ran out (its worker crashed or hung). */
const CLAIMABLE = `d.status = 'pending' AND d.next_attempt_at <= now()
  AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())`;
const WEBHOOK_LIVE = `w.status = 'active' AND w.deleted_at IS NULL`;

/**
 * Sends due deliveries. Each poll claims due rows with a lease (FOR UPDATE SKIP LOCKED, so replicas never claim the
 * same row) and starts their attempts without waiting for them: a slow endpoint holds its own slots only.
 */
export class DeliveryWorker {
  private readonly task: PeriodicTask;
  /** Attempts claimed and not yet recorded (queued behind their origin's limit, or sending), with their delivery. */
  private readonly inFlight = new Map<Promise<void>, Pick<ClaimedDelivery, 'id' | 'webhook_id'>>();
  private readonly random: () => number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.random = options.random ?? Math.random;
    this.task = new PeriodicTask(() => this.claimAndLaunch(), {
      name: 'webhook-delivery-worker',
      intervalMs: options.pollIntervalMs,
      logger: options.logger,
    });
  }

  start(): void {
    this.task.start();
  }

  /** Look for due deliveries now rather than at the next poll (a nudge during a claim claims again at once). */
  nudge(): void {
    this.task.nudge();
  }

  /**
   * Stops claiming, lets the attempts already sending finish and be recorded (each bounded by the timeout), and
   * hands back the leases of those not yet started.
   */
  async stop(): Promise<void> {
    await this.task.stop();
    await Promise.allSettled([...this.inFlight.keys()]);
  }

  private async claimAndLaunch(): Promise<void> {
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
    // The window keeps one busy webhook from filling a whole batch; the outer query re-checks CLAIMABLE on the
    // latest row version, so a row another replica claimed since our snapshot is skipped, never claimed twice. What
    // this process holds is never claimed again, even once its lease ran out while it queued behind a slow origin.
    const [claimed] = (await this.options.dataSource.query(
      `UPDATE deliveries d
          SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond', updated_at = now()
         FROM webhooks w,
              (SELECT d.id FROM deliveries d
                WHERE ${CLAIMABLE}
                  AND d.id IN (
                    SELECT ranked.id FROM (
                      SELECT d.id, row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.seq) AS rank
                        FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
                       WHERE ${CLAIMABLE} AND ${WEBHOOK_LIVE} AND d.webhook_id <> ALL($3::text[])
                         AND d.id <> ALL($6::text[])
                    ) ranked
                    WHERE ranked.rank <= $4)
                ORDER BY d.next_attempt_at
                LIMIT $5
                FOR UPDATE SKIP LOCKED) claimable
        WHERE d.id = claimable.id AND w.id = d.webhook_id
        RETURNING d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.attempt_count, d.trace_context, w.url,
                  w.secret_sealed,
                  CASE WHEN w.previous_secret_until > now() THEN w.previous_secret_sealed END AS previous_secret_sealed`,
      [
        this.options.workerId,
        this.options.leaseMs,
        saturated,
        this.options.maxPerWebhook,
        capacity,
        held.map((delivery) => delivery.id),
      ],
    )) as [ClaimedDelivery[], number];
    return claimed;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    await this.options.limiter.run(delivery.url, async () => {
      if (!this.task.isRunning) {
        // Stopping: an attempt still queued behind a busy endpoint goes back to the pool for another replica.
        await this.releaseLease(delivery.id);
        return;
      }
      // Right before sending: the lease restarts (time queued for a slot does not count) and a delivery cancelled
      // meanwhile (webhook deleted or disabled) is never sent.
      if (!(await this.renewLease(delivery.id))) return;
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

  private async renewLease(deliveryId: string): Promise<boolean> {
    const [rows] = (await this.options.dataSource.query(
      `UPDATE deliveries d SET lease_expires_at = now() + $3 * interval '1 millisecond'
         FROM webhooks w
        WHERE d.id = $1 AND d.lease_owner = $2 AND d.status = 'pending' AND w.id = d.webhook_id AND ${WEBHOOK_LIVE}
        RETURNING d.id`,
      [deliveryId, this.options.workerId, this.options.leaseMs],
    )) as [unknown[], number];
    return rows.length > 0;
  }

  private async releaseLease(deliveryId: string): Promise<void> {
    await this.options.dataSource.query(
      `UPDATE deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`,
      [deliveryId, this.options.workerId],
    );
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
    const attempt = {
      delivery,
      attemptedAt,
      attemptNumber,
      statusCode: result.kind === 'response' ? result.status : null,
      latencyMs: result.latencyMs,
      responseBody: result.kind === 'response' ? result.bodySnippet : null,
      error: result.kind === 'error' ? `${result.error}: ${result.message}` : null,
    };
    if (outcome.kind === 'success') {
      await this.store(this.options.dataSource.manager, attempt, 'delivered', null);
      attemptsTotal.inc({ outcome: 'delivered' });
      if (delivery.event_type === 'payment.confirmed') observeConfirmedToDelivered(delivery.body);
      return;
    }
    if (outcome.kind === 'disable_webhook') {
      await this.options.dataSource.transaction(async (manager) => {
        await this.store(manager, attempt, 'dead', null);
        await this.disableWebhook(manager, delivery.webhook_id);
      });
      attemptsTotal.inc({ outcome: 'webhook_disabled' });
      return;
    }
    const delayMs = nextAttemptDelay(attemptNumber, this.options.schedule, {
      retryAfterSeconds: outcome.retryAfterSeconds,
      random: this.random,
    });
    await this.store(
      this.options.dataSource.manager,
      attempt,
      delayMs === null ? 'dead' : 'pending',
      delayMs,
    );
    attemptsTotal.inc({ outcome: delayMs === null ? 'dead_lettered' : 'retry_scheduled' });
  }

  /**
   * Stores the attempt and moves its delivery on in one statement (one round trip, atomic). The move is conditional
   * on our lease: if the delivery was cancelled meanwhile, the cancellation stands (the attempt is still on record).
   */
  private async store(
    manager: EntityManager,
    attempt: StoredAttempt,
    status: 'pending' | 'delivered' | 'dead',
    delayMs: number | null,
  ): Promise<void> {
    await manager.query(
      `WITH attempt AS (
         INSERT INTO delivery_attempts
           (delivery_id, attempted_at, worker_id, status_code, latency_ms, response_body, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7))
       UPDATE deliveries
          SET status = $8, attempt_count = $9, lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
              next_attempt_at = CASE WHEN $10::bigint IS NULL THEN NULL
                                     ELSE clock_timestamp() + $10::bigint * interval '1 millisecond' END
        WHERE id = $1 AND lease_owner = $3 AND status = 'pending'`,
      [
        attempt.delivery.id,
        attempt.attemptedAt,
        this.options.workerId,
        attempt.statusCode,
        attempt.latencyMs,
        attempt.responseBody,
        attempt.error,
        status,
        attempt.attemptNumber,
        delayMs,
      ],
    );
  }

  /** 410 Gone: the receiver says the endpoint no longer exists, so it gets nothing more. */
  private async disableWebhook(manager: EntityManager, webhookId: string): Promise<void> {
    await manager.query(
      `UPDATE webhooks SET status = 'inactive', updated_at = now() WHERE id = $1 AND status = 'active'`,
      [webhookId],
    );
    await manager.query(
      `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = now()
        WHERE webhook_id = $1 AND status = 'pending'`,
      [webhookId],
    );
    this.options.logger.info({ webhook_id: webhookId }, 'webhook disabled: the receiver answered 410 Gone');
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
  const endpoint = URL.canParse(delivery.url) ? new URL(delivery.url) : undefined;
  return {
    'http.request.method': 'POST',
    ...(endpoint && { 'server.address': endpoint.hostname, 'server.port': Number(endpoint.port || 443) }),
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
