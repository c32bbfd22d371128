export type DeliveryErrorKind = 'timeout' | 'connection' | 'dns' | 'ssrf_refused' | 'tls' | 'invalid_url';

export type DeliveryAttemptResult =
  | {
      kind: 'response';
      status: number;
      headers: Readonly<Record<string, string | readonly string[] | undefined>>;
      bodySnippet: string;
      latencyMs: number;
    }
  | { kind: 'error'; error: DeliveryErrorKind; message: string; latencyMs: number };

export type DeliveryOutcome =
  { kind: 'success' } | { kind: 'disable_webhook' } | { kind: 'retry'; retryAfterSeconds?: number };

const GONE = 410;
const STATUSES_WITH_RETRY_AFTER: ReadonlySet<number> = new Set([429, 503]);

/** What to do after one attempt. 410 Gone is the receiver telling us the endpoint no longer exists. */
export function classifyDeliveryResult(result: DeliveryAttemptResult, nowMs: number): DeliveryOutcome {
  if (result.kind === 'error') {
    return { kind: 'retry' };
  }
  if (result.status >= 200 && result.status < 300) {
    return { kind: 'success' };
  }
  if (result.status === GONE) {
    return { kind: 'disable_webhook' };
  }
  if (STATUSES_WITH_RETRY_AFTER.has(result.status)) {
    return {
      kind: 'retry',
      retryAfterSeconds: parseRetryAfter(firstHeader(result.headers['retry-after']), nowMs),
    };
  }
  return { kind: 'retry' };
}

/** RFC 9110 Retry-After: delay-seconds or an HTTP-date; a date in the past means "now" (0). */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const trimmed = value?.trim();
  if (!trimmed) {
    return undefined;
  }
  if (/^\d+$/.test(trimmed)) {
    return Number(trimmed);
  }
  // V8's Date.parse also accepts bare numbers such as "1.5"; an HTTP-date always names its month.
  const dateMs = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(dateMs)) {
    return undefined;
  }
  return Math.max(0, Math.ceil((dateMs - nowMs) / 1_000));
}

function firstHeader(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}
