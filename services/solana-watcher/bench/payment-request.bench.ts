/**
 * Cost per crypto payment request on this machine: the Solana Pay URL alone, the watcher's RequestIssuer.prepare
 * (fresh reference key, locked quote, URL) and describe (the QR PNG data URI, as the watcher renders it). The QR image
 * encoder itself is measured in packages/qr-png.
 * Run: pnpm --filter @gateway/solana-watcher bench
 */
import { Keypair } from '@solana/web3.js';
import { measure, testLogger } from '@gateway/testkit';
import { QuoteDesk } from '../src/clients/quote-desk';
import { FixedRateProvider } from '../src/domain/quote';
import { buildTransferRequestUrl } from '../src/domain/solana-pay';
import { RequestIssuer } from '../src/application/request-issuer';

async function main(): Promise<void> {
  const wallet = Keypair.generate().publicKey.toBase58();
  const usdcMint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
  const transfer = {
    recipient: wallet,
    amount: 22_222_100n,
    decimals: 6,
    splToken: usdcMint,
    reference: Keypair.generate().publicKey.toBase58(),
    label: 'Padaria São João',
    message: 'Pagamento pay_01JD8X4Y7Z9ABCDEFGHJKMNPQR',
  };
  // The watcher's sandbox set-up: fixed rates, default guards and window.
  const quotes = new QuoteDesk(
    [new FixedRateProvider({ USDC: '0.18', USDT: '0.18', EURC: '0.16' })],
    { maxAgeMs: 300_000, maxDeviationBps: 200, spreadBps: 0 },
    testLogger('bench'),
  );
  const issuer = new RequestIssuer(quotes, {
    receivingWallet: wallet,
    mints: {
      usdc: usdcMint,
      usdt: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
      eurc: 'HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr',
    },
    decimals: 6,
    windowSeconds: 1_800,
  });
  const input = {
    paymentId: 'pay_01JD8X4Y7Z9ABCDEFGHJKMNPQR',
    businessName: 'Padaria São João',
    amountCentavos: 12_345,
    token: 'usdc' as const,
    correlationId: 'bench',
  };
  const request = await issuer.prepare(input);
  const described = await issuer.describe(request);
  console.log(
    `Solana Pay link of ${request.paymentLink.length} characters, QR data URI of ${described.qr_code.length} characters`,
  );

  await measure('buildTransferRequestUrl', 20_000, () => buildTransferRequestUrl(transfer));
  await measure('RequestIssuer.prepare (reference key + quote + URL)', 5_000, () => issuer.prepare(input));
  await measure('RequestIssuer.describe (QR PNG data URI as the watcher renders it)', 2_000, () =>
    issuer.describe(request),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
