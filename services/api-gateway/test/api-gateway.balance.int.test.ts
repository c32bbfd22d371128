import type { Stream } from 'node:stream';
import {
  getBalance,
  getStatementSummary,
  listBalanceTransactions,
  newPublicId,
  type BalanceTransaction,
  type ListBalanceTransactions,
  type StatementSummary,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { waitFor } from '@gateway/testkit';
import { aBalance, aBalanceTransaction } from './support/builders';
import type { OpenApiDocument } from '../src/http/openapi';
import { OpenApiResponseValidator } from './support/openapi';
import { harnessWithMerchantForTheseTests, type Business } from './support/harness';

const HEADER = 'id,created_at,type,source_id,amount_brl,fee_brl,net_brl,available_on,description';

/** RFC 4180 records of a CSV text (quoted fields, doubled quotes, CRLF inside quotes), as a strict reader parses it. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = '';
      i += 1;
    } else if (char === '"' || char === '\r' || char === '\n')
      throw new Error(`bare ${JSON.stringify(char)} at ${i}`);
    else field += char;
  }
  if (quoted || field !== '' || fields.length > 0)
    throw new Error('the text does not end with a whole record');
  return records;
}

/** The frame the ledger answers for `month` of `businessId`. */
function aStatementSummary(
  businessId: string,
  month: string,
  overrides: Partial<StatementSummary> = {},
): StatementSummary {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return {
    business_id: businessId,
    month,
    from: new Date(Date.UTC(year, number - 1, 1)).toISOString(),
    to: new Date(Date.UTC(year, number, 1)).toISOString(),
    opening_balance_centavos: 0,
    closing_balance_centavos: 0,
    ...overrides,
  };
}

/**
 * A ledger of `transactions` (oldest first) paged as the real one pages them: `limit` after `starting_after`, oldest
 * first when asked, `has_more` when more follow.
 */
function pagedLedger(transactions: BalanceTransaction[]) {
  return async (query: ListBalanceTransactions) => {
    const ordered = query.oldest_first ? transactions : [...transactions].reverse();
    const start =
      query.starting_after === null || query.starting_after === undefined
        ? 0
        : ordered.findIndex((t) => t.balance_transaction_id === query.starting_after) + 1;
    const limit = query.limit ?? 10;
    return { data: ordered.slice(start, start + limit), has_more: start + limit < ordered.length };
  };
}

describe('api gateway: the balance, its transactions and the monthly statement', () => {
  const h = harnessWithMerchantForTheseTests('gw-balance', {
    merchant: 'Mercearia Saldo',
    services: ['ledger'],
  });

  const get = (path: string, merchant: Business = h.merchant) =>
    h.http.get(path).set('x-api-key', merchant.api_key);

  test('GET /v1/balance answers the four parts in BRL, asking the ledger for the caller’s business only', async () => {
    const updatedAt = '2026-11-20T10:00:00.000Z';
    h.fakes.on(getBalance, async ({ business_id }) =>
      aBalance(business_id, {
        available_centavos: 123_456,
        pending_centavos: 9_901,
        reserved_centavos: 5,
        blocked_centavos: 999_999_999_999,
        updated_at: updatedAt,
      }),
    );
    const response = await get('/v1/balance');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      available_brl: 1234.56,
      pending_brl: 99.01,
      reserved_brl: 0.05,
      blocked_brl: 9_999_999_999.99,
      updated_at: updatedAt,
    });
    expect(h.fakes.receivedOf(getBalance).at(-1)).toEqual({ business_id: h.merchant.business_id });
  });

  test('each business gets its own balance, and no key gets none', async () => {
    const other = await h.newBusiness('Outra Mercearia');
    h.fakes.on(getBalance, async ({ business_id }) =>
      aBalance(business_id, {
        available_centavos: business_id === other.business_id ? 700 : 100,
      }),
    );
    expect((await get('/v1/balance', other)).body.available_brl).toBe(7);
    expect((await get('/v1/balance')).body.available_brl).toBe(1);
    expect(h.fakes.receivedOf(getBalance).slice(-2)).toEqual([
      { business_id: other.business_id },
      { business_id: h.merchant.business_id },
    ]);
    const before = h.fakes.receivedOf(getBalance).length;
    const anonymous = await h.http.get('/v1/balance');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    expect(h.fakes.receivedOf(getBalance)).toHaveLength(before);
  });

  test('a balance of another business than the caller’s is never shown', async () => {
    h.fakes.on(getBalance, async () => aBalance(newPublicId('biz'), { available_centavos: 500 }));
    const response = await get('/v1/balance');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
  });

  test('GET /v1/balance_transactions asks for 10 newest first by default and shows each item in BRL with its id', async () => {
    const payment = aBalanceTransaction(h.merchant.business_id, {
      amount_centavos: 10_000,
      fee_centavos: 149,
      net_centavos: 9_851,
      status: 'available',
      // Paid before the month's end, posted after it.
      occurred_at: '2026-10-31T23:59:00.000Z',
      description: 'Pagamento PIX',
    });
    const refund = aBalanceTransaction(h.merchant.business_id, {
      type: 'refund',
      source_id: newPublicId('ref'),
      amount_centavos: -2_550,
      fee_centavos: 0,
      net_centavos: -2_550,
      description: '',
    });
    h.fakes.on(listBalanceTransactions, async () => ({ data: [refund, payment], has_more: true }));
    const response = await get('/v1/balance_transactions');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        {
          id: refund.balance_transaction_id,
          type: 'refund',
          source_id: refund.source_id,
          amount_brl: -25.5,
          fee_brl: 0,
          net_brl: -25.5,
          status: 'pending',
          available_on: refund.available_on,
          created_at: refund.created_at,
          occurred_at: refund.occurred_at,
          description: '',
        },
        {
          id: payment.balance_transaction_id,
          type: 'payment',
          source_id: payment.source_id,
          amount_brl: 100,
          fee_brl: 1.49,
          net_brl: 98.51,
          status: 'available',
          available_on: payment.available_on,
          created_at: payment.created_at,
          occurred_at: payment.occurred_at,
          description: 'Pagamento PIX',
        },
      ],
      has_more: true,
    });
    expect(h.fakes.receivedOf(listBalanceTransactions).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      limit: 10,
      starting_after: null,
      oldest_first: false,
    });
  });

  test('GET /v1/balance_transactions passes limit, starting_after and the filters, and walks every page', async () => {
    const transactions = Array.from({ length: 25 }, (_, i) =>
      aBalanceTransaction(h.merchant.business_id, { description: `#${i}` }),
    );
    h.fakes.on(listBalanceTransactions, pagedLedger(transactions));
    const filters = 'type=payment&created_gte=2026-11-01T00:00:00.000Z&created_lt=2026-12-01T00:00:00.000Z';
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const response = await get(
        `/v1/balance_transactions?limit=10&${filters}${after ? `&starting_after=${after}` : ''}`,
      );
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((item: { id: string }) => item.id));
      expect(h.fakes.receivedOf(listBalanceTransactions).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        limit: 10,
        starting_after: after ?? null,
        type: 'payment',
        created_gte: '2026-11-01T00:00:00.000Z',
        created_lt: '2026-12-01T00:00:00.000Z',
        oldest_first: false,
      });
      if (!response.body.has_more) break;
      after = response.body.data.at(-1).id;
    }
    expect(seen).toEqual([...transactions].reverse().map((t) => t.balance_transaction_id));
  });

  test('a bad filter, limit or cursor is INVALID_FIELDS before the ledger is asked', async () => {
    const before = h.fakes.receivedOf(listBalanceTransactions).length;
    for (const query of [
      'type=chargeback',
      'limit=0',
      'limit=101',
      'created_gte=yesterday',
      'created_lt=2026-13-01',
      `starting_after=${newPublicId('pay')}`,
      'starting_after=btx_short',
    ]) {
      const response = await get(`/v1/balance_transactions?${query}`);
      expect({ query, status: response.status, code: response.body.error?.code }).toEqual({
        query,
        status: 422,
        code: 'INVALID_FIELDS',
      });
    }
    expect(h.fakes.receivedOf(listBalanceTransactions)).toHaveLength(before);
  });

  test('a balance transaction of another business in the ledger’s page is never listed', async () => {
    h.fakes.on(listBalanceTransactions, async ({ business_id }) => ({
      data: [aBalanceTransaction(business_id), aBalanceTransaction(newPublicId('biz'))],
      has_more: false,
    }));
    const response = await get('/v1/balance_transactions');
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('btx_');
  });

  test('GET /v1/statements/{month} answers RFC 4180 CSV: escaped fields, neutralised formulas, the two balance rows', async () => {
    const month = '2026-10';
    const at = (day: number) => new Date(Date.UTC(2026, 9, day, 12)).toISOString();
    const rows = [
      aBalanceTransaction(h.merchant.business_id, {
        created_at: at(1),
        available_on: at(2),
        amount_centavos: 123_456,
        fee_centavos: 1_234,
        net_centavos: 122_222,
        description: 'Pedido 12, "camiseta" azul',
      }),
      aBalanceTransaction(h.merchant.business_id, {
        type: 'refund',
        source_id: newPublicId('ref'),
        created_at: at(3),
        available_on: at(3),
        amount_centavos: -5,
        fee_centavos: 0,
        net_centavos: -5,
        description: 'linha um\r\nlinha dois\nlinha três',
      }),
      aBalanceTransaction(h.merchant.business_id, {
        type: 'adjustment',
        source_id: newPublicId('adj'),
        created_at: at(4),
        available_on: at(4),
        amount_centavos: 100,
        fee_centavos: 0,
        net_centavos: 100,
        description: '=HYPERLINK("http://evil.example","clique")',
      }),
      ...['+1+1', '-2+3', '@SUM(A1)', '\tTAB', 'a=1 +2'].map((description, i) =>
        aBalanceTransaction(h.merchant.business_id, {
          created_at: at(5 + i),
          available_on: at(6 + i),
          amount_centavos: 0,
          fee_centavos: 0,
          net_centavos: 0,
          description,
        }),
      ),
    ];
    h.fakes.on(getStatementSummary, async ({ business_id }) =>
      aStatementSummary(business_id, month, {
        opening_balance_centavos: -1_000,
        closing_balance_centavos: 121_317,
      }),
    );
    h.fakes.on(listBalanceTransactions, pagedLedger(rows));

    const response = await get(`/v1/statements/${month}`).buffer(true).parse(textParser());
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="statement-2026-10.csv"');
    const text = response.body as string;
    expect(text.startsWith(`${HEADER}\r\n`)).toBe(true);
    expect(text.split('\r\n')[1]).toBe(
      `${rows[0]!.balance_transaction_id},${at(1)},payment,${rows[0]!.source_id},1234.56,12.34,1222.22,${at(2)},` +
        '"Pedido 12, ""camiseta"" azul"',
    );
    const records = parseCsv(text);
    expect(records.every((record) => record.length === 9)).toBe(true);
    expect(records[0]!.join(',')).toBe(HEADER);
    expect(records.slice(1, -2).map((record) => record[0])).toEqual(
      rows.map((row) => row.balance_transaction_id),
    );
    expect(records.slice(1, -2).map((record) => record.slice(4, 7))).toEqual([
      ['1234.56', '12.34', '1222.22'],
      ['-0.05', '0.00', '-0.05'],
      ['1.00', '0.00', '1.00'],
      ...Array.from({ length: 5 }, () => ['0.00', '0.00', '0.00']),
    ]);
    expect(records.slice(1, -2).map((record) => record[8])).toEqual([
      'Pedido 12, "camiseta" azul',
      'linha um\r\nlinha dois\nlinha três',
      `'=HYPERLINK("http://evil.example","clique")`,
      "'+1+1",
      "'-2+3",
      "'@SUM(A1)",
      "'\tTAB",
      'a=1 +2',
    ]);
    expect(records.slice(-2)).toEqual([
      ['opening_balance_brl', '-10.00', '', '', '', '', '', '', ''],
      ['closing_balance_brl', '1213.17', '', '', '', '', '', '', ''],
    ]);
    expect(h.fakes.receivedOf(getStatementSummary).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      month,
    });
  });

  test('a month of 250 balance transactions is asked for 100 at a time, oldest first, within the month, and streamed in order', async () => {
    const month = '2026-02';
    const summary = aStatementSummary(h.merchant.business_id, month, {
      opening_balance_centavos: 50_000,
      closing_balance_centavos: 50_000 + 250 * 9_901,
    });
    const transactions = Array.from({ length: 250 }, (_, i) =>
      aBalanceTransaction(h.merchant.business_id, {
        created_at: new Date(Date.parse(summary.from) + i * 60_000).toISOString(),
        description: `Pagamento ${i}`,
      }),
    );
    h.fakes.on(getStatementSummary, async () => summary);
    // The second page is answered only once the client has the first page's rows: a gateway that held the month
    // before writing it would wait for ever (and answer 503).
    let arrived = '';
    const ledger = pagedLedger(transactions);
    const endOfFirstPage = transactions[99]!.balance_transaction_id;
    h.fakes.on(listBalanceTransactions, async (query) => {
      if (query.starting_after === endOfFirstPage)
        await waitFor(async () => arrived.includes(endOfFirstPage) || undefined, {
          timeoutMs: 1_500,
          what: "the first page's rows at the client",
        });
      return ledger(query);
    });
    const before = h.fakes.receivedOf(listBalanceTransactions).length;

    const response = await get(`/v1/statements/${month}`)
      .buffer(true)
      .parse(textParser((text) => (arrived = text)));
    expect(response.status).toBe(200);
    const records = parseCsv(response.body as string);
    expect(records).toHaveLength(1 + 250 + 2);
    expect(records.slice(1, -2).map((record) => record[0])).toEqual(
      transactions.map((t) => t.balance_transaction_id),
    );
    expect(records.at(-1)).toEqual(['closing_balance_brl', '25252.50', '', '', '', '', '', '', '']);
    const page = (startingAfter: string | null) => ({
      business_id: h.merchant.business_id,
      limit: 100,
      starting_after: startingAfter,
      created_gte: summary.from,
      created_lt: summary.to,
      oldest_first: true,
    });
    expect(h.fakes.receivedOf(listBalanceTransactions).slice(before)).toEqual([
      page(null),
      page(transactions[99]!.balance_transaction_id),
      page(transactions[199]!.balance_transaction_id),
    ]);
  });

  test('a month with no balance transactions is the header and two equal balances', async () => {
    h.fakes.on(getStatementSummary, async ({ business_id, month }) =>
      aStatementSummary(business_id, month, {
        opening_balance_centavos: 4_200,
        closing_balance_centavos: 4_200,
      }),
    );
    h.fakes.on(listBalanceTransactions, async () => ({ data: [], has_more: false }));
    const response = await get('/v1/statements/2031-01').buffer(true).parse(textParser());
    expect(response.status).toBe(200);
    expect(response.body).toBe(
      `${HEADER}\r\nopening_balance_brl,42.00,,,,,,,\r\nclosing_balance_brl,42.00,,,,,,,\r\n`,
    );
  });

  test('a posting that lands in the month while the file is read shows in its rows and its closing alike', async () => {
    // The frame was read before the posting; the page after it: the file still adds up.
    h.fakes.on(getStatementSummary, async ({ business_id, month }) =>
      aStatementSummary(business_id, month, {
        opening_balance_centavos: 1_000,
        closing_balance_centavos: 1_000,
      }),
    );
    h.fakes.on(listBalanceTransactions, async ({ business_id }) => ({
      data: [
        aBalanceTransaction(business_id, {
          amount_centavos: 10_000,
          fee_centavos: 100,
          net_centavos: 9_900,
        }),
      ],
      has_more: false,
    }));
    const response = await get('/v1/statements/2031-02').buffer(true).parse(textParser());
    expect(response.status).toBe(200);
    expect(parseCsv(response.body as string).slice(-2)).toEqual([
      ['opening_balance_brl', '10.00', '', '', '', '', '', '', ''],
      ['closing_balance_brl', '109.00', '', '', '', '', '', '', ''],
    ]);
  });

  test.each([
    ['a thirteenth month', '2026-13'],
    ['month zero', '2026-00'],
    ['a one-digit month', '2026-1'],
    ['a two-digit year', '26-01'],
    ['a year before 2000', '1999-12'],
    ['a word', 'abc'],
    ['a trailing NUL', '2026-01%00'],
    ['a leading NUL', '%002026-01'],
    ['a trailing space', '2026-01%20'],
    ['a file name', '2026-01.csv'],
    ['a right-to-left override', '%E2%80%AE2026-01'],
    ['4,000 characters', 'x'.repeat(4000)],
  ])('a malformed month (%s) is INVALID_FIELDS and asks the ledger nothing', async (_label, segment) => {
    const before = h.fakes.received.length;
    const response = await get(`/v1/statements/${segment}`);
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ error: { code: 'INVALID_FIELDS', message: 'Campos inválidos: month.' } });
    expect(h.fakes.received).toHaveLength(before);
  });

  test('a month that cannot even be decoded is NOT_FOUND, as any undecodable path', async () => {
    const response = await get('/v1/statements/%ZZ');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  test('a statement needs the API key, and the ledger is asked for the caller’s business only', async () => {
    const other = await h.newBusiness('Terceira Mercearia');
    h.fakes.on(getStatementSummary, async ({ business_id, month }) => aStatementSummary(business_id, month));
    h.fakes.on(listBalanceTransactions, async () => ({ data: [], has_more: false }));
    const anonymous = await h.http.get('/v1/statements/2026-11');
    expect(anonymous.status).toBe(401);
    const before = h.fakes.received.length;
    expect((await get('/v1/statements/2026-11', other)).status).toBe(200);
    const asked = h.fakes.received.slice(before).map((entry) => entry.payload as { business_id: string });
    expect(asked).toHaveLength(2);
    expect(asked.every((payload) => payload.business_id === other.business_id)).toBe(true);
  });

  test('a statement whose ledger page holds another business’s transaction fails before a byte of CSV', async () => {
    h.fakes.on(getStatementSummary, async ({ business_id, month }) => aStatementSummary(business_id, month));
    h.fakes.on(listBalanceTransactions, async () => ({
      data: [aBalanceTransaction(newPublicId('biz'))],
      has_more: false,
    }));
    const response = await get('/v1/statements/2026-09');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.error.code).toBe('INTERNAL_ERROR');
  });

  test('a month the ledger refuses is its error in the contract’s JSON, not a CSV', async () => {
    h.fakes.on(getStatementSummary, async () => {
      throw new CommandError('INVALID_FIELDS', 'month');
    });
    const response = await get('/v1/statements/2026-08');
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('INVALID_FIELDS');
  });
  test('every answer of the three routes, success or error, is as the served OpenAPI document states', async () => {
    const document = (await h.http.get('/openapi.json')).body as OpenApiDocument;
    const validator = new OpenApiResponseValidator(document);
    h.fakes.on(getBalance, async ({ business_id }) => aBalance(business_id, { pending_centavos: 9_901 }));
    h.fakes.on(listBalanceTransactions, async ({ business_id }) => ({
      data: [
        aBalanceTransaction(business_id),
        aBalanceTransaction(business_id, {
          type: 'payout',
          source_id: newPublicId('po'),
          amount_centavos: -100,
        }),
      ],
      has_more: false,
    }));
    h.fakes.on(getStatementSummary, async ({ business_id, month }) => aStatementSummary(business_id, month));
    const answers: string[] = [];
    for (const [path, key, status] of [
      ['/v1/balance', h.merchant.api_key, 200],
      ['/v1/balance', undefined, 401],
      ['/v1/balance_transactions?limit=2&type=payout', h.merchant.api_key, 200],
      ['/v1/balance_transactions?type=nope', h.merchant.api_key, 422],
      ['/v1/statements/2026-11', h.merchant.api_key, 200],
      ['/v1/statements/2026-13', h.merchant.api_key, 422],
      ['/v1/statements/2026-11', undefined, 401],
    ] as const) {
      const response = await fetch(`${h.gateway.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });
      const check = validator.check('GET', new URL(path, h.gateway.url).pathname, {
        status: response.status,
        headers: response.headers,
        body: await response.text(),
      });
      answers.push(`${path} -> ${response.status} ${check.errors.join('; ')}`.trim());
      expect(response.status).toBe(status);
    }
    expect(answers.filter((answer) => !/ -> \d+$/.test(answer))).toEqual([]);
  });
});

/** Supertest's parser for a text body of any media type, telling `onText` the text so far at every chunk. */
function textParser(onText: (text: string) => void = () => undefined) {
  return (
    res: Stream & { setEncoding(encoding: BufferEncoding): unknown },
    done: (err: Error | null, body: string) => void,
  ): void => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => onText((text += chunk)));
    res.on('end', () => done(null, text));
  };
}
