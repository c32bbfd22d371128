import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair, PublicKey } from '@solana/web3.js';
import { DataSource } from 'typeorm';
import { SANDBOX_PAYER_SECRET_KEY } from '@gateway/config';
import { payTransferRequest } from '@gateway/solana-pay-wallet';
import { stackClient, startStack, waitFor, type RunningStack, type StackClient } from '@gateway/testkit';
import { decodeBase58 } from '../src/domain/base58';

/** The crypto settlement delay of this stack: short enough to wait for, long enough to see the money pending. */
const CRYPTO_DELAY_SECONDS = 8;
const CNPJ = '12345678000195';

/**
 * A price source the test moves, answering as CoinGecko's `simple/price` does (BRL per USDC, with its last-updated
 * time), or 503 while its price is null; anything else (the Binance ticker) is 404, so the watcher's quote is this
 * source's price.
 */
async function movablePriceSource(): Promise<{
  server: Server;
  url: string;
  setBrlPerUsdc(price: string | null): void;
}> {
  let brlPerUsdc: string | null = '5';
  const server = createServer((request, response) => {
    if (!request.url?.startsWith('/simple/price') || brlPerUsdc === null) {
      response.writeHead(request.url?.startsWith('/simple/price') ? 503 : 404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(`{"usd-coin":{"brl":${brlPerUsdc},"last_updated_at":${Math.floor(Date.now() / 1000)}}}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    setBrlPerUsdc: (price) => {
      brlPerUsdc = price;
    },
  };
}

/**
 * The whole stack as `npm start` runs it, its quotes from a price source the test moves. A business sends tokens to
 * one of its own expired payments when the token is worth half what that payment's quote said, and records them
 * returned by hand: it is credited what the tokens were worth when they arrived, less its fee, pending until the crypto
 * settlement delay is over, never what the old quote said.
 */
describe('late tokens recorded returned by hand, through the stack', () => {
  let prices: Awaited<ReturnType<typeof movablePriceSource>>;
  let stack: RunningStack;
  let client: StackClient;
  let database: DataSource;
  const booksQuery = (text: string, params: unknown[]): Promise<Array<Record<string, unknown>>> =>
    database.query(text, params);

  beforeAll(async () => {
    prices = await movablePriceSource();
    stack = await startStack({
      QUOTE_PROVIDER: 'live',
      COINGECKO_URL: prices.url,
      BINANCE_URL: prices.url,
      SETTLEMENT_DELAY_CRYPTO: String(CRYPTO_DELAY_SECONDS),
      // Each scanned page with transfers takes its own quote: each test's transfer is valued at its own moment.
      ARRIVAL_QUOTE_MAX_AGE_MS: '0',
    });
    client = stackClient(stack);
    database = await new DataSource({
      type: 'postgres',
      url: stack.env.config.DATABASE_URL,
      extra: { max: 1 },
    }).initialize();
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await database?.destroy();
    await stack?.stop();
    await new Promise((resolve) => prices?.server.close(resolve));
  });

  /** A business with a crypto fee rule (1.5 % + R$ 0,10) and a payout account. */
  async function aBusiness(): Promise<{ apiKey: string; businessId: string }> {
    const business = await client.createBusiness('Loja Cripto', {
      crypto: { percent_bps: 150, fixed_centavos: 10 },
    });
    await client.admin('PUT', `/admin/v1/businesses/${business.businessId}/payout-account`, {
      pix_key: CNPJ,
      pix_key_type: 'cnpj',
      holder_document: CNPJ,
    });
    return business;
  }

  /**
   * A USDC payment of R$ 100,00 at R$ 5,00 a USDC (20 USDC, the quote it locks) that expired; then, at `brlPerUsdc`
   * (null: no price source answers), the business sends 20 USDC to its reference. Its late received funds.
   */
  async function lateTokens(apiKey: string, brlPerUsdc: string | null) {
    prices.setBrlPerUsdc('5');
    const payment = await client.createPayment(apiKey, {
      payment_method: 'crypto',
      amount: 10_000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    const paymentId = payment.payment_id as string;
    expect(payment.crypto.amount).toBe(20);
    const link = new URL(payment.crypto.payment_link as string);
    const expired = await client.api(apiKey, 'POST', `/v1/sandbox/payments/${paymentId}/simulate`, {
      outcome: 'expired',
    });
    expect(expired.status).toBe(202);
    await client.paymentIn(apiKey, paymentId, 'expired');

    prices.setBrlPerUsdc(brlPerUsdc);
    await payTransferRequest(
      stack.solanaRpcUrl,
      Keypair.fromSecretKey(decodeBase58(SANDBOX_PAYER_SECRET_KEY)!),
      {
        recipient: new PublicKey(link.pathname),
        mint: new PublicKey(link.searchParams.get('spl-token')!),
        reference: new PublicKey(link.searchParams.get('reference')!),
        amountBaseUnits: 20_000_000n,
      },
    );
    const late = await waitFor(
      async () =>
        (await client.api(apiKey, 'GET', `/v1/payments/${paymentId}/received-funds`)).body.data?.[0],
      { timeoutMs: 60_000, intervalMs: 250, what: 'the late tokens kept as received funds' },
    );
    return { paymentId, late };
  }

  test('late tokens on an old payment whose quote is higher: credited at their arrival value, less the fee, pending', async () => {
    const { apiKey } = await aBusiness();
    // The token is now worth half as much; the business sends 20 USDC to its expired payment's reference.
    const { paymentId, late } = await lateTokens(apiKey, '2.5');
    // Valued at the quote of their arrival (0.4 USDC per BRL), not the payment's (0.2): R$ 50,00, not R$ 100,00.
    expect(late).toMatchObject({
      kind: 'late',
      rail: 'crypto',
      amount_token: 20,
      value_brl: 50,
      arrival_quote: { token_per_brl: 0.4, quoted_at: expect.any(String) },
      status: 'held',
    });

    const returned = await client.api(
      apiKey,
      'POST',
      `/v1/payments/${paymentId}/received-funds/${late.funds_id}/return`,
    );
    expect(returned).toMatchObject({ status: 200, body: { status: 'returned', returned_by: 'manual' } });

    const line = await waitFor(
      async () =>
        (
          (await client.api(apiKey, 'GET', '/v1/balance_transactions?type=adjustment')).body.data as Array<
            Record<string, unknown>
          >
        ).find((transaction) => transaction.source_id === late.funds_id),
      { timeoutMs: 30_000, intervalMs: 200, what: 'the credit posted' },
    );
    // The crypto fee rule (1.5 % + R$ 0,10) on R$ 50,00: R$ 0,85.
    expect(line).toMatchObject({ amount_brl: 50, fee_brl: 0.85, net_brl: 49.15, status: 'pending' });
    const availableOn = Date.parse(line.available_on as string);
    expect(availableOn - Date.parse(line.occurred_at as string)).toBe(CRYPTO_DELAY_SECONDS * 1000);
    expect((await client.api(apiKey, 'GET', '/v1/balance')).body).toMatchObject({
      available_brl: 0,
      pending_brl: 49.15,
    });
    const payout = await client.api(apiKey, 'POST', '/v1/payouts', { amount: 4_915 });
    expect(Date.now()).toBeLessThan(availableOn);
    expect(payout).toMatchObject({ status: 422, body: { error: { code: 'INSUFFICIENT_BALANCE' } } });

    const balance = await waitFor(
      async () => {
        const read = (await client.api(apiKey, 'GET', '/v1/balance')).body;
        return read.available_brl === 49.15 ? read : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the credit settled at its available_on' },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(availableOn);
    expect(balance).toMatchObject({ pending_brl: 0 });
  }, 150_000);

  test('late tokens when no price source answers: not valued, never at the payment quote; neither assigned nor returned by hand, nothing credited', async () => {
    const { apiKey } = await aBusiness();
    const { paymentId, late } = await lateTokens(apiKey, null);
    expect(late).toMatchObject({
      kind: 'late',
      amount_token: 20,
      value_brl: null,
      arrival_quote: null,
      status: 'held',
    });
    const assigned = await fetch(`${stack.gatewayUrl}/admin/v1/received-funds/${late.funds_id}/assign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(assigned.status).toBe(422);
    expect(((await assigned.json()) as { error: { code: string } }).error.code).toBe('INVALID_STATUS');

    const returned = await client.api(
      apiKey,
      'POST',
      `/v1/payments/${paymentId}/received-funds/${late.funds_id}/return`,
    );
    // Nor recorded returned by hand: it would credit nothing and close the record; it stays held for the operator.
    expect(returned).toMatchObject({ status: 422, body: { error: { code: 'INVALID_STATUS' } } });
    const [after] = (await client.api(apiKey, 'GET', `/v1/payments/${paymentId}/received-funds`)).body.data;
    expect(after).toMatchObject({
      funds_id: late.funds_id,
      status: 'held',
      returned_by: null,
      value_brl: null,
    });
    // The books know of it (nothing booked) and keep it held too.
    const held = await waitFor(
      async () =>
        (
          await booksQuery(`SELECT status FROM ledger.suspense_funds WHERE funds_id = $1`, [late.funds_id])
        )[0],
      { timeoutMs: 30_000, intervalMs: 200, what: 'the books recorded the money' },
    );
    expect(held).toMatchObject({ status: 'held' });
    expect((await client.api(apiKey, 'GET', '/v1/balance')).body).toMatchObject({
      available_brl: 0,
      pending_brl: 0,
    });
    expect((await client.api(apiKey, 'GET', '/v1/balance_transactions')).body.data).toEqual([]);
  }, 150_000);
});
