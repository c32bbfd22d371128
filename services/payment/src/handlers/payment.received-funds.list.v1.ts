import type { DataSource } from 'typeorm';
import {
  pageRequest,
  type CryptoInstructions,
  type ListReceivedFunds,
  type Page,
  type ReceivedFundsItem,
} from '@gateway/contracts';
import { CommandError, pageReply } from '@gateway/messaging';
import { findPayment, listReceivedFundsOf } from '../persistence';

/**
 * Lists the money kept for a payment of the calling business outside its happy path (late, excess, partial,
 * unmatched), newest first, a page at a time; another business's payment is NOT_FOUND.
 */
export function handleListReceivedFunds(dataSource: DataSource) {
  return async (query: ListReceivedFunds): Promise<Page<ReceivedFundsItem>> => {
    const payment = await findPayment(dataSource.manager, query.payment_id, query.business_id);
    if (!payment) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
    // A rail that counts in token base units says so in its instructions (the watcher's TOKEN_DECIMALS); PIX counts
    // in centavos and has none.
    const decimals = (payment.instructions as Partial<CryptoInstructions> | null)?.decimals ?? null;
    const page = await listReceivedFundsOf(dataSource.manager, payment.id, pageRequest(query));
    return pageReply(page, (row) => ({
      funds_id: row.fundsId,
      kind: row.kind,
      rail: row.rail,
      reference: row.railReference,
      instruction: row.instruction === '' ? null : row.instruction,
      amount_centavos: row.amountCentavos,
      amount_base_units: row.amountBaseUnits,
      decimals: row.amountBaseUnits === null ? null : decimals,
      detected_at: row.recordedAt.toISOString(),
    }));
  };
}
