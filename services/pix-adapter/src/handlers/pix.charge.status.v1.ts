import type { GetPixChargeStatus, PixChargeStatus } from '@gateway/contracts';
import { pixAmountToCentavos } from '../domain/amount';
import { closureReason } from '../domain/received-pix';
import { componentesOf } from '../domain/due-charge';
import { pixPayerOf } from '../domain/payer';
import { readChargeStatus, type ChargeStatusDeps } from '../application/read-charge-status';
import { AMOUNT_NOT_ACCEPTED_DETAIL } from '../application/shared/record-received-pix';

/** The charge answered with every PIX the PSP lists on it and, if it ended unpaid, its closure. */
export function handleChargeStatus(deps: ChargeStatusDeps) {
  return async (command: GetPixChargeStatus): Promise<PixChargeStatus> => {
    const { charge, cob, unpaid } = await readChargeStatus(deps, command.payment_id);
    // The contract knows no `cancelled`: a removed cob is a charge that failed (its payment is final already).
    const status = charge.status === 'cancelled' ? 'failed' : charge.status;
    const ended = status === 'expired' || status === 'failed';
    // A due-date charge failed with its cobv concluded by a Pix that did not pay it (see applyConfirmedPix).
    const notAccepted =
      charge.status === 'failed' && charge.due !== null && cob?.status === 'CONCLUIDA' && unpaid.length > 0;
    return {
      txid: charge.txid,
      status,
      pix: (cob?.pix ?? []).map((pix) => ({
        end_to_end_id: pix.endToEndId,
        amount_centavos: pixAmountToCentavos(pix.valor),
        paid_at: new Date(pix.horario).toISOString(),
        payer: pixPayerOf(pix.pagador),
        // A charge with a due date: the parts of the Pix that paid it (as its pix.charge.paid.v1 reported them).
        ...(charge.due
          ? {
              amount_parts:
                charge.paidEndToEndId === pix.endToEndId && pix.componentesValor !== undefined
                  ? componentesOf(pix.componentesValor)
                  : null,
            }
          : {}),
      })),
      closure: ended
        ? notAccepted
          ? {
              reason: 'failed',
              detail: AMOUNT_NOT_ACCEPTED_DETAIL,
              cause: 'amount_not_accepted',
              received_pix: unpaid,
            }
          : {
              reason: closureReason(status === 'failed', unpaid.length),
              detail: status === 'failed' ? (cob?.status ?? null) : null,
              received_pix: unpaid,
            }
        : null,
    };
  };
}
