import {
  cryptoFundsReturnRequested,
  cryptoRefundRequested,
  changeCryptoRequestAmount,
  getCryptoRequestStatus,
  openCryptoRequest,
  simulateCryptoOutcome,
  type CryptoRequestClosed,
  type CryptoRequestSettled,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { FundsReceived, RailClosure } from '../domain/funds';
import { paymentToOpen, railClosure, type Rail, type RailPayment } from './rail';
import type { RailCaller } from './rail-caller';

/**
 * crypto.request.settled.v1 as funds received: the watcher priced the request in token base units at its quote,
 * so the transfers are measured against that price (what they received less the excess).
 */
export function cryptoSettledFunds(
  paymentId: string,
  settled: Pick<
    CryptoRequestSettled,
    'signature' | 'received_base_units' | 'excess_base_units' | 'payer_address'
  >,
): FundsReceived {
  const received = BigInt(settled.received_base_units);
  return {
    paymentId,
    rail: 'crypto',
    reference: settled.signature,
    received,
    against: { kind: 'price', units: received - BigInt(settled.excess_base_units) },
    payer: settled.payer_address ? { address: settled.payer_address } : null,
  };
}

/** What a request's window collected without reaching its price (none when it collected nothing). */
function collectedShort(paymentId: string, reference: string, receivedBaseUnits: string): FundsReceived[] {
  const received = BigInt(receivedBaseUnits);
  if (received === 0n) return [];
  return [{ paymentId, rail: 'crypto', reference, received, against: { kind: 'counted-short' } }];
}

/** crypto.request.closed.v1 (or the closure a status read reports) as a rail closure. */
export function cryptoRequestClosure(
  paymentId: string,
  closed: Pick<CryptoRequestClosed, 'reference' | 'reason' | 'received_base_units'>,
): RailClosure {
  return railClosure(
    paymentId,
    closed.reason,
    null,
    collectedShort(paymentId, closed.reference, closed.received_base_units),
  );
}

/** Stablecoins on Solana through the watcher: a payment request (Solana Pay link) priced in the token. */
export function cryptoRail(caller: RailCaller): Rail {
  return {
    method: 'crypto',
    openStatus: 'pending',
    reshowsInstructions: false,
    refundRequested: cryptoRefundRequested,
    fundsReturnRequested: cryptoFundsReturnRequested,
    refundWindowDays: null,

    checkCreate(command) {
      if (command.token === null)
        throw new CommandError('MISSING_FIELDS', 'Campos obrigatórios ausentes: crypto.currency.');
      // A due date is a kind of PIX charge (cobv); no crypto request has one.
      if (command.due) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: pix.due.');
    },

    async open(payment, context) {
      const opening = {
        ...paymentToOpen(payment),
        token: payment.token as NonNullable<RailPayment['token']>,
      };
      const { reference, ...instructions } = await caller.call(openCryptoRequest, opening, context, 'open');
      return { externalId: reference, instructions };
    },

    async changeAmount(payment, amountCentavos, context) {
      const change = { ...paymentToOpen(payment), amount_centavos: amountCentavos };
      const { reference, superseded, ...instructions } = await caller.call(
        changeCryptoRequestAmount,
        change,
        context,
        'change-amount',
      );
      const [collected] = collectedShort(payment.id, superseded.reference, superseded.received_base_units);
      return { externalId: reference, instructions, superseded: collected ?? null };
    },

    simulate: (paymentId, { outcome, amount_centavos }, context) => {
      // Disputes are PIX's (MED): the payment service refuses them before asking this rail.
      if (outcome !== 'paid' && outcome !== 'failed' && outcome !== 'expired')
        throw new CommandError('INVALID_FIELDS', 'Campos inválidos: outcome.');
      return caller.call(
        simulateCryptoOutcome,
        { payment_id: paymentId, outcome, amount_centavos },
        context,
        'simulate',
      );
    },

    async report(paymentId) {
      const request = await caller.ask(getCryptoRequestStatus, { payment_id: paymentId });
      return {
        state: request.status,
        funds: request.settlement ? [cryptoSettledFunds(paymentId, request.settlement)] : [],
        closure:
          request.closure &&
          cryptoRequestClosure(paymentId, { reference: request.reference, ...request.closure }),
      };
    },

    // A token transfer has no dispute mechanism (MED is PIX's): nothing takes a defence.
    defendDispute: () =>
      Promise.reject(
        new CommandError('DEFENCE_NOT_SUPPORTED', 'Não há como enviar defesa de uma disputa deste método.'),
      ),
  };
}
