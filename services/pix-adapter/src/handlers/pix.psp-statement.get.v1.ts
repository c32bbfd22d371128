import type { GetPspStatement, PspStatement } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { pixAmountToCentavos } from '../domain/amount';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import type { PixPayoutPort } from '../clients/psp/envio';

export interface PspStatementDeps {
  psp: Pick<ApiPixClient, 'listReceivedPix' | 'getReceivedPix'>;
  envio: Pick<PixPayoutPort, 'listSentPix' | 'readBalance'>;
  /** The Pix with a devolução of ours asked for or settled in the period (whenever they were received). */
  pixWithDevolucoes: (from: Date, to: Date) => Promise<string[]>;
  now?: () => Date;
}

/** How many Pix received before the period are read at once (`GET /pix/{e2eid}`). */
const READS_AT_ONCE = 4;

/**
 * What the PSP says of a period (docs/operating.md#reconciliation-of-the-books): the Pix received (API Pix `GET /pix`, every page),
 * with their devoluções, the Pix sent (the envio list) and the account's balance (`GET /v2/gn/saldo`), read before
 * the lists so the books are compared as of `read_at`, no later. A Pix received before the period whose devolução
 * the adapter asked for, or saw settle, in it is read on its own (`GET /pix/{e2eid}`) and listed too: its devolução
 * is money that left in the period (`GET /pix` lists a Pix by when it was received). Nothing is kept: the ledger
 * compares it with its books. A PSP that cannot be read is SERVICE_UNAVAILABLE.
 */
export function handleGetPspStatement(deps: PspStatementDeps) {
  return async (command: GetPspStatement): Promise<PspStatement> => {
    const from = new Date(command.from);
    const to = new Date(command.to);
    if (to.getTime() < from.getTime()) throw new CommandError('INVALID_FIELDS', '"to" is before "from"');
    try {
      const readAt = deps.now?.() ?? new Date();
      const balance = await deps.envio.readBalance();
      const [listed, sent, withDevolucoes] = await Promise.all([
        deps.psp.listReceivedPix(from, to),
        deps.envio.listSentPix(from, to),
        deps.pixWithDevolucoes(from, to),
      ]);
      const listedIds = new Set(listed.map((pix) => pix.endToEndId));
      const earlier = await readEach(
        withDevolucoes.filter((id) => !listedIds.has(id)),
        (id) => deps.psp.getReceivedPix(id),
      );
      const received = [...listed, ...earlier];
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        balance_centavos: balance,
        read_at: readAt.toISOString(),
        received: received.map((pix) => ({
          end_to_end_id: pix.endToEndId,
          txid: pix.txid,
          amount_centavos: pixAmountToCentavos(pix.valor),
          paid_at: new Date(pix.horario).toISOString(),
          returns: pix.devolucoes.map((devolucao) => ({
            id: devolucao.id,
            rtr_id: devolucao.rtrId,
            amount_centavos: pixAmountToCentavos(devolucao.valor),
            status: devolucao.status,
            requested_at: new Date(devolucao.horario.solicitacao ?? pix.horario).toISOString(),
            settled_at:
              devolucao.horario.liquidacao === undefined
                ? null
                : new Date(devolucao.horario.liquidacao).toISOString(),
          })),
        })),
        sent: sent.map((envio) => ({
          end_to_end_id: envio.endToEndId,
          id_envio: envio.idEnvio,
          amount_centavos: pixAmountToCentavos(envio.valor),
          status: envio.status,
          requested_at: new Date(envio.horario.solicitacao).toISOString(),
          settled_at:
            envio.horario.liquidacao === undefined ? null : new Date(envio.horario.liquidacao).toISOString(),
        })),
      };
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw new CommandError('SERVICE_UNAVAILABLE', `the PSP could not be read: ${(error as Error).message}`);
    }
  };
}

/** `read` of each id, `READS_AT_ONCE` at a time, in the ids' order. */
async function readEach<T>(ids: string[], read: (id: string) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < ids.length; i += READS_AT_ONCE)
    results.push(...(await Promise.all(ids.slice(i, i + READS_AT_ONCE).map(read))));
  return results;
}
