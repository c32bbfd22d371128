import type { RunningStack } from './stack';
import { waitFor } from '@gateway/testkit-core';

/** A JSON answer as a test reads it: any field, checked by the test's own expectations. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the answer's fields freely
export type JsonBody = Record<string, any>;

export interface ApiAnswer {
  status: number;
  body: JsonBody;
}

export type PaymentMethodName = 'pix' | 'crypto';
export interface FeeRule {
  percent_bps: number;
  fixed_centavos: number;
}

/** The public HTTP API of a running stack, as a merchant (by API key) and its operator (by admin token) call it. */
export interface StackClient {
  /** A merchant's request with `key`; the answer whatever its status. */
  api(
    key: string,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiAnswer>;
  /** An operator's request; anything but a 2xx answer fails the test. */
  admin(method: string, path: string, body?: unknown): Promise<JsonBody>;
  /** A new business with the given fee rules; its id and API key. */
  createBusiness(
    name: string,
    feeRules?: Partial<Record<PaymentMethodName, FeeRule>>,
  ): Promise<{ businessId: string; apiKey: string }>;
  /** A payment of the business of `key`; anything but 201 fails the test. */
  createPayment(key: string, body: Record<string, unknown>): Promise<JsonBody>;
  /** The sandbox's payer pays the payment in full (accepted: 202, else the test fails). */
  payInSandbox(key: string, paymentId: string): Promise<void>;
  /** The payment as GET reads it once it is in `status`. */
  paymentIn(key: string, paymentId: string, status: string, timeoutMs?: number): Promise<JsonBody>;
  /** The business of `key`'s webhook endpoint at `url` for `events`; the registration's answer (with its secret). */
  registerWebhook(key: string, url: string, events: string[]): Promise<JsonBody>;
}

export function stackClient(stack: Pick<RunningStack, 'gatewayUrl' | 'adminToken'>): StackClient {
  const request = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${stack.gatewayUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const api: StackClient['api'] = async (key, method, path, body, headers = {}) => {
    const response = await request(method, path, { 'x-api-key': key, ...headers }, body);
    return { status: response.status, body: (await response.json()) as JsonBody };
  };

  const admin: StackClient['admin'] = async (method, path, body) => {
    const response = await request(method, path, { authorization: `Bearer ${stack.adminToken}` }, body);
    const answer = (await response.json()) as JsonBody;
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };

  return {
    api,
    admin,
    async createBusiness(name, feeRules = {}) {
      const business = await admin('POST', '/admin/v1/businesses', { name });
      for (const [method, rule] of Object.entries(feeRules))
        await admin('PUT', `/admin/v1/businesses/${business.business_id}/fee-rules/${method}`, rule);
      return { businessId: business.business_id as string, apiKey: business.api_key as string };
    },
    async createPayment(key, body) {
      const answer = await api(key, 'POST', '/v1/payments', body);
      if (answer.status !== 201)
        throw new Error(`the payment's creation answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
    async payInSandbox(key, paymentId) {
      const answer = await api(key, 'POST', `/v1/sandbox/payments/${paymentId}/simulate`, {
        outcome: 'paid',
      });
      if (answer.status !== 202)
        throw new Error(`the sandbox payment answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    },
    paymentIn(key, paymentId, status, timeoutMs = 30_000) {
      return waitFor(
        async () => {
          const { body } = await api(key, 'GET', `/v1/payments/${paymentId}`);
          return body.status === status ? body : undefined;
        },
        { timeoutMs, intervalMs: 250, what: `payment ${paymentId} ${status}` },
      );
    },
    async registerWebhook(key, url, events) {
      const answer = await api(key, 'POST', '/v1/webhook', { url, events });
      if (answer.status !== 201)
        throw new Error(`the webhook registration answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
  };
}
