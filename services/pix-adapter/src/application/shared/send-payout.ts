import {
  PayoutConflict,
  payerMisconfigurationOf,
  payoutRefusalOf,
  type SentPix,
} from '../../clients/psp/envio';
import { PspError } from '../../clients/psp/psp-error';
import { refusedPayoutReason } from '../../domain/payout-outcome';
import type { PayoutEntity } from '../../persistence';
import {
  applySentPix,
  holdPayout,
  originOf,
  settlePayout,
  type PayoutDeps,
  type PayoutHeldReason,
} from './settle-payout';

/** Efí `pagador.infoPagador`, shown to the receiver: at most 140 characters. */
const MESSAGE_MAX = 140;

/** Why an attempt that did not go through waits, or undefined for a failure that is no PSP's (a bug: thrown). */
function heldReasonOf(error: unknown): { reason: PayoutHeldReason; detail: string } | undefined {
  if (error instanceof PayoutConflict) return { reason: 'conflict', detail: error.message };
  const misconfigured = payerMisconfigurationOf(error);
  if (misconfigured) return { reason: 'payer_misconfigured', detail: misconfigured.detail };
  if (!(error instanceof PspError)) return undefined;
  return { reason: error.kind === 'unauthorized' ? 'unauthorized' : 'unavailable', detail: error.message };
}

/**
 * Asks the PSP to send the payout (`PUT /v3/gn/pix/{idEnvio}`) outside any transaction, then records the answer in a
 * short one. The idEnvio is the payout's own, so a retry after a lost answer meets the send made (the port reads it
 * back), never a second one. A refusal that will be the same next time (insufficient balance, an invalid key, a key of
 * another holder, a denial) settles the payout failed with the PSP's words: nothing left the account. Anything that
 * may pass, or that an operator must fix (the payer key misconfigured, credentials refused, a conflicting send),
 * leaves the payout for a later attempt, never failed (`holdPayout`).
 */
export async function sendPayout(deps: PayoutDeps, payout: PayoutEntity): Promise<void> {
  let sent: SentPix;
  try {
    sent = await deps.port.sendPix({
      idEnvio: payout.idEnvio,
      amountCentavos: payout.amountCentavos,
      payerKey: deps.payerKey,
      destination: { pixKey: payout.pixKey, holderDocument: payout.holderDocument },
      message: `Repasse ${payout.payoutId}`.slice(0, MESSAGE_MAX),
    });
  } catch (error) {
    const refusal = payoutRefusalOf(error);
    if (refusal) {
      deps.logger.warn(
        { payout_id: payout.payoutId, reason: refusal.reason, detail: refusal.detail },
        'PSP refused a payout',
      );
      await deps.uow.run(originOf(payout), (tx) =>
        settlePayout(
          tx,
          payout.payoutId,
          {
            outcome: 'failed',
            endToEndId: null,
            failureReason: refusedPayoutReason(refusal.reason, refusal.detail),
            settledAt: new Date(),
          },
          deps.logger,
        ),
      );
      return;
    }
    const held = heldReasonOf(error);
    if (held === undefined) throw error;
    await holdPayout(deps, payout, held.reason, held.detail);
    return;
  }
  await deps.uow.run(originOf(payout), (tx) => applySentPix(tx, deps, payout.payoutId, sent));
}
