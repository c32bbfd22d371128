import fc from 'fast-check';
import { waitFor } from '@gateway/testkit';
import {
  expectError,
  hostileBodyTests,
  hostileQueryTests,
  hostileString,
  otherBusinessTests,
  pathIdTests,
  unservedMethodTests,
  withJson,
  type HostileStack,
} from '../support/hostile-input';

const CPF = '52998224725';

/** Hostile input on the payout routes and the operator's payout account, through the whole stack and the ledger. */
export function payoutRoutes(h: HostileStack): void {
  const { hit, asA, asAdmin } = h;
  const account = JSON.stringify({ pix_key: CPF, pix_key_type: 'cpf', holder_document: CPF });
  const accountPath = () => `/admin/v1/businesses/${h.a.businessId}/payout-account`;
  /** A payout of business A, for B to ask for. */
  let payoutId: string;

  beforeAll(async () => {
    expect((await hit('PUT', accountPath(), withJson(asAdmin(), account))).status).toBe(200);
    const payment = await hit(
      'POST',
      '/v1/payments',
      withJson(asA(), JSON.stringify({ payment_method: 'pix', amount: 10_000 })),
    );
    expect(payment.status).toBe(201);
    const paymentId = payment.json.payment_id as string;
    const paid = await hit(
      'POST',
      `/v1/sandbox/payments/${paymentId}/simulate`,
      withJson(asA(), '{"outcome":"paid"}'),
    );
    expect(paid.status).toBe(202);
    await waitFor(
      async () => ((await hit('GET', '/v1/balance', { headers: asA() })).json.available_brl as number) > 10,
      { timeoutMs: 30_000, intervalMs: 200, what: "A's payment available" },
    );
    const payout = await hit('POST', '/v1/payouts', withJson(asA(), '{"amount":500}'));
    expect(payout.status).toBe(201);
    payoutId = payout.json.payout_id;
  }, 60_000);

  describe('methods a route does not serve are NOT_FOUND (an unknown route), on every route', () => {
    unservedMethodTests(h, [
      ['/v1/payouts', () => '/v1/payouts', ['GET', 'POST'], () => asA()],
      ['/v1/payouts/{id}', () => `/v1/payouts/${payoutId}`, ['GET'], () => asA()],
      ['/admin/v1/businesses/{id}/payout-account', accountPath, ['PUT'], () => asAdmin()],
    ]);
  });

  describe('path ids that cannot exist are NOT_FOUND at once', () => {
    pathIdTests(h, [['GET', (id) => `/v1/payouts/${id}`, undefined]]);
  });

  describe('hostile bodies are clean 4xx', () => {
    hostileBodyTests(h, [
      ['POST', '/v1/payouts', () => '/v1/payouts', () => asA()],
      ['PUT', '/admin/v1/businesses/{id}/payout-account', accountPath, () => asAdmin()],
    ]);
  });

  describe('hostile query strings', () => {
    hostileQueryTests(h, [
      ['a cursor of another kind', () => '/v1/payouts?starting_after=pay_abcdefghijklmnopqrstuvwx'],
      ['a huge cursor', () => `/v1/payouts?starting_after=po_${'a'.repeat(5000)}`],
      ['a limit past the maximum', () => '/v1/payouts?limit=101'],
      ['a NUL in the cursor', () => '/v1/payouts?starting_after=po_abcdefghijklmnopqrstuvwx%00'],
    ]);
  });

  describe("another business's payout", () => {
    otherBusinessTests(
      h,
      [['GET', 'a payout', () => `/v1/payouts/${payoutId}`, undefined]],
      [['payouts', 'payout_id', () => [payoutId]]],
    );
  });

  test('out-of-range, fractional and non-numeric amounts are INVALID_AMOUNT, and reserve nothing', async () => {
    const before = (await hit('GET', '/v1/balance', { headers: asA() })).json;
    for (const amount of [
      '99',
      '0',
      '-1',
      '10.5',
      '1e15',
      '9007199254740993',
      '"1000"',
      'true',
      '[1000]',
      '{}',
    ])
      expectError(
        await hit('POST', '/v1/payouts', withJson(asA(), `{"amount":${amount}}`)),
        'INVALID_AMOUNT',
      );
    expectError(
      await hit('POST', '/v1/payouts', withJson(asA(), '{"amount":999999999999}')),
      'INSUFFICIENT_BALANCE',
    );
    expect((await hit('GET', '/v1/balance', { headers: asA() })).json).toEqual(before);
  });

  test('B, with no payout account, cannot pay out; no body field gives it one', async () => {
    const asB = { 'x-api-key': h.b.apiKey };
    for (const body of [
      '{}',
      `{"amount":100,"pix_key":"${CPF}","pix_key_type":"cpf","holder_document":"${CPF}"}`,
    ])
      expectError(await hit('POST', '/v1/payouts', withJson(asB, body)), 'NO_PAYOUT_ACCOUNT');
  });

  test('any PIX key the operator sends is an account or a clean 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileString,
        fc.constantFrom('cpf', 'cnpj', 'email', 'phone', 'evp'),
        async (key, type) => {
          const answer = await hit(
            'PUT',
            `/admin/v1/businesses/${h.b.businessId}/payout-account`,
            withJson(asAdmin(), JSON.stringify({ pix_key: key, pix_key_type: type, holder_document: CPF })),
          );
          expect(answer.status).toBeLessThan(500);
          if (answer.status >= 400) expectError(answer, 'INVALID_FIELDS', 'MISSING_FIELDS');
        },
      ),
      { numRuns: 60 },
    );
  });

  test('the payout account is the operator’s: an API key, or no credential, is UNAUTHORIZED', async () => {
    expectError(await hit('PUT', accountPath(), withJson(asA(), account)), 'UNAUTHORIZED');
    expectError(
      await hit('PUT', accountPath(), withJson({ 'content-type': 'application/json' }, account)),
      'UNAUTHORIZED',
    );
    for (const path of ['/v1/payouts', `/v1/payouts/${payoutId}`])
      expectError(await hit('GET', path), 'UNAUTHORIZED');
  });

  test('nothing was parked', h.nothingParked);
}
