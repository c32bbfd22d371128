import {
  cryptoTransferUnapplied,
  type CryptoRequest,
  type CryptoTransferUnapplied,
} from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { waitFor } from '@gateway/testkit';
import type { WatcherHarness } from './watcher';

/** The `crypto.transfer.unapplied.v1` events the watcher published, as the payment service receives them. */
export class UnappliedTransfers {
  private readonly received: CryptoTransferUnapplied[] = [];

  /** Collects them from the enclosing describe's first test on, on a queue of their own. */
  static forTheseTests(harness: WatcherHarness): UnappliedTransfers {
    const collected = new UnappliedTransfers();
    beforeAll(() =>
      // A queue under a service name the watcher does not use, standing in for the payment service.
      harness.client
        .handlers('payment')
        .handle(cryptoTransferUnapplied, async (_payload: unknown, context: MessageContext) => {
          collected.received.push(context.envelope.payload as CryptoTransferUnapplied);
        })
        .consume(),
    );
    return collected;
  }

  /** Those about a payment so far. */
  of(paymentId: string): CryptoTransferUnapplied[] {
    return this.received.filter((transfer) => transfer.payment_id === paymentId);
  }

  /** Waits for the first one about a payment. */
  first(paymentId: string, what = `an unapplied transfer of ${paymentId}`): Promise<CryptoTransferUnapplied> {
    return waitFor(() => this.of(paymentId)[0], { what });
  }
}

/**
 * The report of a transfer instruction of a request's whole amount that cannot count towards it, whenever it was
 * detected, with the quote of its token that values it (the harness's fixed USDC rate).
 */
export function aWholeAmountUnapplied(
  request: CryptoRequest & { payment_id: string },
  transfer: Pick<CryptoTransferUnapplied, 'signature' | 'mint' | 'reason'>,
): CryptoTransferUnapplied {
  return {
    payment_id: request.payment_id,
    reference: request.reference,
    amount_base_units: request.amount_base_units,
    ...transfer,
    // Where the transfer sits in its transaction: the money is reported once per instruction.
    instruction: expect.stringMatching(/^\d+(\.\d+)?$/),
    detected_at: expect.any(String),
    quote: { token: 'usdc', token_per_brl: USDC_RATE, quoted_at: expect.any(String) },
  };
}

/** The harness's fixed USDC rate (0.18 tokens per BRL), as an exact ratio. */
const USDC_RATE = expect.stringMatching(/^18(0*)\/100\1$/);
