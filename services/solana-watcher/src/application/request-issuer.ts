import { generateKeyPairSync } from 'node:crypto';
import { qrPngDataUri } from '@gateway/qr-png';
import type { CryptoRequest, Token } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { TraceHeaders } from '@gateway/observability';
import { QuoteUnavailableError, tokenBaseUnitsForBrl, type Stablecoin } from '../domain/quote';
import { encodeBase58 } from '../domain/base58';
import { formatRatio } from '../domain/rational';
import { buildTransferRequestUrl } from '../domain/solana-pay';
import { PaymentRequestEntity } from '../persistence';
import type { QuoteDesk } from '../clients/quote-desk';

export interface IssuingSettings {
  receivingWallet: string;
  mints: Record<Token, string>;
  decimals: number;
  windowSeconds: number;
}

export interface RequestInput {
  paymentId: string;
  businessName: string;
  amountCentavos: number;
  token: Token;
  correlationId: string;
  /** The trace a transfer found for the request continues; none: it starts its own. */
  traceContext?: TraceHeaders | null;
}

/** Builds new transfer requests: a fresh reference key, a locked quote, the Solana Pay link and its 30-minute window. */
export class RequestIssuer {
  constructor(
    private readonly quotes: QuoteDesk,
    private readonly settings: IssuingSettings,
  ) {}

  /** Locks a quote and builds a request (not yet stored); quotes may go over HTTP, so call it outside a transaction. */
  async prepare(input: RequestInput): Promise<PaymentRequestEntity> {
    const quote = await this.quotes.lock(input.token.toUpperCase() as Stablecoin).catch((err: unknown) => {
      if (err instanceof QuoteUnavailableError)
        throw new CommandError('SERVICE_UNAVAILABLE', 'Cotação do token indisponível no momento.');
      throw err;
    });
    const reference = newReferenceKey();
    const mint = this.settings.mints[input.token];
    const amount = tokenBaseUnitsForBrl(input.amountCentavos, quote.tokenPerBrl, this.settings.decimals);
    const request = new PaymentRequestEntity();
    Object.assign(request, {
      reference,
      paymentId: input.paymentId,
      token: input.token,
      mint,
      amountBaseUnits: amount,
      decimals: this.settings.decimals,
      quoteRate: formatRatio(quote.tokenPerBrl),
      quoteSource: quote.sources.join(','),
      quoteAt: quote.at,
      paymentLink: buildTransferRequestUrl({
        recipient: this.settings.receivingWallet,
        amount,
        decimals: this.settings.decimals,
        splToken: mint,
        reference,
        label: input.businessName,
        message: `Pagamento ${input.paymentId}`,
      }),
      expiresAt: new Date(quote.at.getTime() + this.settings.windowSeconds * 1000),
      status: 'open',
      receivedBaseUnits: 0n,
      settledSignature: null,
      correlationId: input.correlationId,
      traceContext: input.traceContext ?? null,
    } satisfies Omit<PaymentRequestEntity, 'createdAt'>);
    return request;
  }

  /** What the payment service shows the payer: link, QR code of the link, wallet, amount and expiry. */
  async describe(request: PaymentRequestEntity): Promise<CryptoRequest> {
    return {
      reference: request.reference,
      currency: request.token,
      network: 'solana',
      qr_code: qrPngDataUri(request.paymentLink),
      payment_link: request.paymentLink,
      wallet_address: this.settings.receivingWallet,
      amount_base_units: request.amountBaseUnits.toString(),
      decimals: request.decimals,
      expires_at: request.expiresAt.toISOString(),
    };
  }
}

/**
 * A fresh reference: the public half of a new ed25519 key pair whose secret is dropped, as Solana Pay's wallets and
 * libraries make one (a key on the curve nobody holds); node's own key generation, without loading web3.js.
 */
export function newReferenceKey(): string {
  const { x } = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return encodeBase58(Buffer.from(x!, 'base64url'));
}
