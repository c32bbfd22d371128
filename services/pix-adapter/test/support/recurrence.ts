import {
  newPublicId,
  openPixRecurrence,
  type OpenPixRecurrence,
  type PixRecurrence,
} from '@gateway/contracts';
import { daysAfter, pspSandboxToken, waitFor } from '@gateway/testkit';
import type { AdapterBed } from './adapter';

/** The PSP simulator's own now (its clock moves forward in tests). */
export async function pspNow(pspUrl: string): Promise<Date> {
  const { body } = await atPsp(pspUrl, 'GET', '/sandbox/relogio');
  return new Date((body as { agora: string }).agora);
}

/**
 * A valid `pix.recurrence.open.v1` (journey 1 by default) starting `startDate`, its authorization open for three
 * days from `now` (the PSP's); a test states what matters to it.
 */
export const anOpenRecurrence = (
  startDate: string,
  now: Date,
  overrides: Partial<OpenPixRecurrence> = {},
): OpenPixRecurrence => ({
  subscription_id: newPublicId('sub'),
  business_id: newPublicId('biz'),
  business_name: 'Café Açaí Ltda',
  debtor: { name: 'Francisco da Silva', document: '12345678909' },
  amount_centavos: 4990,
  minimum_amount_centavos: null,
  interval: 'monthly',
  start_date: startDate,
  end_date: daysAfter(startDate, 365),
  description: 'Plano mensal',
  retry_policy: 'none',
  journey: 'push',
  payer_account: { ispb: '12345678', branch: '0001', account: '998877' },
  first_payment: null,
  authorization_expires_at: new Date(now.getTime() + 3 * 86_400_000).toISOString(),
  ...overrides,
});

/** Opens a recurrence through the adapter's command (a refusal fails the test). */
export async function openRecurrence(
  bed: AdapterBed,
  command: OpenPixRecurrence,
  options: { messageId?: string } = {},
): Promise<PixRecurrence> {
  const reply = await bed.request(openPixRecurrence, command, { timeoutMs: 10_000, ...options });
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return reply.result;
}

/** A call to the PSP simulator as the sandbox's own client (every scope), answering its status and body. */
export async function atPsp(
  pspUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${pspUrl}/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${await pspSandboxToken(pspUrl)}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

/** The payloads of the events named `name` in the adapter's outbox whose `key` is `value`, in order. */
export async function eventsOf<T = Record<string, unknown>>(
  bed: AdapterBed,
  name: string,
  key: string,
  value: string,
): Promise<T[]> {
  const rows: Array<{ payload: T }> = await bed.service.dataSource.query(
    `SELECT envelope->'payload' AS payload FROM outbox WHERE name = $1 AND envelope->'payload'->>$2 = $3 ORDER BY seq`,
    [name, key, value],
  );
  return rows.map((row) => row.payload);
}

/** Waits until exactly `count` such events are in the outbox, then answers them. */
export function eventsBecome<T = Record<string, unknown>>(
  bed: AdapterBed,
  name: string,
  key: string,
  value: string,
  count: number,
): Promise<T[]> {
  return waitFor(
    async () => {
      const events = await eventsOf<T>(bed, name, key, value);
      return events.length === count && events;
    },
    { timeoutMs: 15_000, what: `${count} ${name} about ${value}` },
  );
}
