import type { HttpOperationTypes } from '@gateway/contracts';

type Answer<Op extends keyof HttpOperationTypes> = HttpOperationTypes[Op] extends { answer: infer A }
  ? A
  : never;

/** The operator API answered with an error (its contract code and status). */
export class OperatorApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'OperatorApiError';
  }
}

/**
 * The operator API refused what was asked (a 4xx other than not found and too many requests), in words a form can show;
 * a 429 is the "Muitas requisições" page like any other, and a 404 is the caller's to name.
 */
export function isOperatorRefusal(err: unknown): err is OperatorApiError {
  return (
    err instanceof OperatorApiError &&
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 404 &&
    err.status !== 429
  );
}

/**
 * The gateway's operator API (/admin/v1), the operations the dashboard needs of it: a business with its first key
 * (sign-up), a business's keys, a further key, a roll, a revocation, its payout account; and for the operator console
 * the businesses, their fee rules, the parked messages and the reconciliation runs. The token goes in the
 * Authorization header only.
 */
export class GatewayAdmin {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 10_000,
  ) {}

  /** `keyPurpose` `dashboard`: the first key is the dashboard's own (its own rate limit at the gateway). */
  createBusiness(
    name: string,
    keyPurpose: 'merchant' | 'dashboard' = 'merchant',
  ): Promise<Answer<'createBusiness'>> {
    return this.call('POST', '/admin/v1/businesses', { name, key_purpose: keyPurpose });
  }

  /** Marks a key as the dashboard's own (or a merchant's). */
  setApiKeyPurpose(
    keyPrefix: string,
    purpose: 'merchant' | 'dashboard',
  ): Promise<Answer<'setApiKeyPurpose'>> {
    return this.call('PUT', `/admin/v1/api-keys/${encodeURIComponent(keyPrefix)}/purpose`, { purpose });
  }

  getBusiness(businessId: string): Promise<Answer<'getBusiness'>> {
    return this.call('GET', `/admin/v1/businesses/${encodeURIComponent(businessId)}`);
  }

  issueApiKey(businessId: string, scopes?: string[]): Promise<Answer<'issueApiKey'>> {
    return this.call(
      'POST',
      `/admin/v1/businesses/${encodeURIComponent(businessId)}/api-keys`,
      scopes ? { scopes } : {},
    );
  }

  /** A successor with the same scopes; the old key works on for the operator API's default overlap (a day). */
  rollApiKey(keyPrefix: string): Promise<Answer<'rollApiKey'>> {
    return this.call('POST', `/admin/v1/api-keys/${encodeURIComponent(keyPrefix)}/roll`, {});
  }

  revokeApiKey(keyPrefix: string): Promise<Answer<'revokeApiKey'>> {
    return this.call('DELETE', `/admin/v1/api-keys/${encodeURIComponent(keyPrefix)}`);
  }

  /** Where the business's payouts go (the operator API checks the key against its type). */
  setPayoutAccount(
    businessId: string,
    account: HttpOperationTypes['setPayoutAccount']['body'],
  ): Promise<Answer<'setPayoutAccount'>> {
    return this.call('PUT', `/admin/v1/businesses/${encodeURIComponent(businessId)}/payout-account`, account);
  }

  /** The businesses, newest first; `startingAfter` a business id for the next page. */
  listBusinesses(page: { limit: number; startingAfter?: string }): Promise<Answer<'listBusinesses'>> {
    return this.call('GET', `/admin/v1/businesses${pageQuery(page)}`);
  }

  setFeeRule(
    businessId: string,
    method: 'pix' | 'crypto',
    rule: HttpOperationTypes['setFeeRule']['body'],
  ): Promise<Answer<'setFeeRule'>> {
    return this.call(
      'PUT',
      `/admin/v1/businesses/${encodeURIComponent(businessId)}/fee-rules/${encodeURIComponent(method)}`,
      rule,
    );
  }

  listParkedMessages(): Promise<Answer<'listParkedMessages'>> {
    return this.call('GET', '/admin/v1/parked');
  }

  /** Sends the parked messages of `queue` (of every queue when absent) back to their queues. */
  redriveParkedMessages(queue?: string): Promise<Answer<'redriveParkedMessages'>> {
    return this.call('POST', '/admin/v1/parked/redrive', queue ? { queue } : {});
  }

  listReconciliations(page: {
    limit: number;
    startingAfter?: string;
  }): Promise<Answer<'listReconciliations'>> {
    return this.call('GET', `/admin/v1/reconciliations${pageQuery(page)}`);
  }

  getReconciliation(reconciliationId: string): Promise<Answer<'getReconciliation'>> {
    return this.call('GET', `/admin/v1/reconciliations/${encodeURIComponent(reconciliationId)}`);
  }

  /** Runs a reconciliation now (it asks two rails: it may take up to the operator API's 15 s). */
  runReconciliation(from?: string): Promise<Answer<'runReconciliation'>> {
    return this.call('POST', '/admin/v1/reconciliations', from ? { from } : {}, 20_000);
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs = this.timeoutMs,
  ): Promise<T> {
    const response = await fetch(`${this.baseUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    }).catch((err: unknown) => {
      // Refused, reset or past the timeout: the gateway is away, as a 503 of its own would say. The cause (ECONNREFUSED,
      // ENOTFOUND, a timeout) stays in the message, which the error page's log line carries.
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new OperatorApiError(
        503,
        'SERVICE_UNAVAILABLE',
        `operator API did not answer: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`,
      );
    });
    const answer = (await response.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string };
    };
    if (!response.ok)
      throw new OperatorApiError(
        response.status,
        answer.error?.code ?? 'INTERNAL_ERROR',
        answer.error?.message ?? `operator API answered ${response.status}`,
      );
    return answer as T;
  }
}

/** A page's query string: `?limit=20&starting_after=...`. */
function pageQuery(page: { limit: number; startingAfter?: string }): string {
  const query = new URLSearchParams({ limit: String(page.limit) });
  if (page.startingAfter) query.set('starting_after', page.startingAfter);
  return `?${query.toString()}`;
}
