import fc from 'fast-check';
import {
  expectError,
  hostileQueryTests,
  hostileString,
  unservedMethodTests,
  type HostileStack,
} from '../support/hostile-input';

/** Hostile input on the balance, balance transaction and statement routes, through the whole stack and the ledger. */
export function booksRoutes(h: HostileStack): void {
  const { hit, asA } = h;

  describe('methods a route does not serve are NOT_FOUND (an unknown route), on every route', () => {
    unservedMethodTests(h, [
      ['/v1/balance', () => '/v1/balance', ['GET'], () => asA()],
      ['/v1/balance_transactions', () => '/v1/balance_transactions', ['GET'], () => asA()],
      ['/v1/statements/{month}', () => '/v1/statements/2026-11', ['GET'], () => asA()],
    ]);
  });

  describe('hostile headers, credentials and query strings', () => {
    hostileQueryTests(h, [
      ['a nested limit', () => '/v1/balance_transactions?limit[a][b][c][d][e][f]=1'],
      ['an unknown type', () => '/v1/balance_transactions?type=chargeback'],
      ['a NUL in a date', () => '/v1/balance_transactions?created_gte=2026-11-01%00'],
      [
        'a cursor of another kind',
        () => '/v1/balance_transactions?starting_after=pay_abcdefghijklmnopqrstuvwx',
      ],
      ['a huge cursor', () => `/v1/balance_transactions?starting_after=btx_${'a'.repeat(5000)}`],
      ['a limit past the maximum', () => '/v1/balance_transactions?limit=101'],
    ]);
  });

  test('any month in the path is a statement or a clean 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, async (month) => {
        // Every byte percent-encoded (a lone surrogate becomes U+FFFD's bytes, as a client would send it).
        const encoded = [...Buffer.from(month, 'utf8')].map(
          (byte) => `%${byte.toString(16).padStart(2, '0')}`,
        );
        const answer = await hit('GET', `/v1/statements/${encoded.join('')}`, { headers: asA() });
        expect(answer.status).toBeLessThan(500);
        if (answer.status >= 400) expectError(answer, 'INVALID_FIELDS', 'NOT_FOUND');
      }),
      { numRuns: 60 },
    );
  });

  test('without a key, every route is UNAUTHORIZED before the ledger is asked', async () => {
    for (const path of ['/v1/balance', '/v1/balance_transactions', '/v1/statements/2026-11'])
      expectError(await hit('GET', path), 'UNAUTHORIZED');
  });

  test('nothing was parked', h.nothingParked);
}
