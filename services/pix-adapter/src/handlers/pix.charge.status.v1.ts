import type { GetPixChargeStatus, PixChargeStatus } from '@gateway/contracts';
import { pixAmountToCentavos } from '../domain/amount';
import { closureReason } from '../domain/received-pix';
import { pixPayerOf } from '../domain/payer';
import { readChargeStatus, type ChargeStatusDeps } from '../application/read-charge-status';

/** The charge answered with every PIX the PSP lists on it and, if it ended unpaid, its closure. */
export function handleChargeStatus(deps: ChargeStatusDeps) {
  return async (command: GetPixChargeStatus): Promise<PixChargeStatus> => {
    const { charge, cob, unpaid } = await readChargeStatus(deps, command.payment_id);
    // The contract knows no `cancelled`: a removed cob is a charge that failed (its payment is final already).
    const status = charge.status === 'cancelled' ? 'failed' : charge.status;
    const ended = status === 'expired' || status === 'failed';
    return {
      txid: charge.txid,
      status,
      pix: (cob?.pix ?? []).map((pix) => ({
        end_to_end_id: pix.endToEndId,
        amount_centavos: pixAmountToCentavos(pix.valor),
        paid_at: new Date(pix.horario).toISOString(),
        payer: pixPayerOf(pix.pagador),
      })),
      closure: ended
        ? {
            reason: closureReason(status === 'failed', unpaid.length),
            detail: status === 'failed' ? (cob?.status ?? null) : null,
            received_pix: unpaid,
          }
        : null,
    };
  };
}
