import type { Logger } from '@gateway/observability';
import type { ApiPixClient } from './api-pix-client';
import type { Cob } from './cob';
import { PspError } from './psp-error';

/**
 * The cob as the PSP has it now, read outside any transaction: 'missing' when the PSP does not know the txid (the
 * caller says so, once: `notePspKnowledgeOfCharge`), 'unavailable' when it could not answer (the caller tries again
 * later).
 */
export async function readCob(
  psp: Pick<ApiPixClient, 'getCharge'>,
  txid: string,
  logger: Logger,
): Promise<Cob | 'missing' | 'unavailable'> {
  try {
    return await psp.getCharge(txid);
  } catch (err) {
    if (err instanceof PspError && err.kind === 'not_found') return 'missing';
    logger.warn({ txid, err: String(err) }, 'PSP not reachable to re-read a charge');
    return 'unavailable';
  }
}
