import { createHash } from 'node:crypto';
import type { PayoutRequested } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { idEnvioOf } from '../domain/id-envio';
import { PayoutEntity } from '../persistence';
import { claimRequestedPayout, insertPayoutOnce } from '../persistence/payout-store';
import { sendPayout } from './shared/send-payout';
import type { PayoutDeps } from './shared/settle-payout';

/**
 * How long whoever stores or claims a payout keeps it to itself while it sends: longer than a send with its retries
 * and read-back takes, after which the poll may try it (the same idEnvio, so never twice).
 */
export const PAYOUT_LEASE_SECONDS = 60;

function idEnvioOfPayout(payoutId: string): string {
  return idEnvioOf(payoutId, (text) => createHash('sha256').update(text).digest());
}

/**
 * Carries a payout out as one Pix sent from the platform's account. The payout is stored first, once per payout id
 * (any redelivery, under any message id, finds it), then sent outside any transaction; the PSP's callback (or the
 * poll, when it is lost) settles it. A redelivery of a payout still `requested` that nobody is sending tries it again
 * at once (under the same idEnvio); one the PSP holds or that is settled is left as it is.
 */
export async function requestPayout(
  deps: PayoutDeps,
  event: PayoutRequested,
  context: MessageContext,
): Promise<void> {
  const { manager } = deps.dataSource;
  const inserted = await insertPayoutOnce(
    manager,
    {
      payoutId: event.payout_id,
      businessId: event.business_id,
      idEnvio: idEnvioOfPayout(event.payout_id),
      amountCentavos: event.amount_centavos,
      pixKey: event.destination.pix_key,
      pixKeyType: event.destination.pix_key_type,
      holderDocument: event.destination.holder_document,
      correlationId: context.envelope.correlation_id,
      requestedAt: new Date(event.requested_at),
    },
    PAYOUT_LEASE_SECONDS,
  );
  if (!inserted && !(await claimRequestedPayout(manager, event.payout_id, PAYOUT_LEASE_SECONDS))) return;
  await sendPayout(deps, await manager.findOneByOrFail(PayoutEntity, { payoutId: event.payout_id }));
}
