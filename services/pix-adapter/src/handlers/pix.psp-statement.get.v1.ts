import type { GetPspStatement, PspStatement } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { pixAmountToCentavos } from '../domain/amount';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import type { PixPayoutPort } from '../clients/psp/envio';

export interface PspStatementDeps {
  psp: Pick<ApiPixClient, 'listReceivedPix'>;
  envio: Pick<PixPayoutPort, 'listSentPix' | 'readBalance'>;
  now?: () => Date;
}

/**
 * What the PSP says of a period (docs/operating.md#reconciliation-of-the-books): the Pix received (API Pix `GET /pix`, every page),
 * with their devoluções, the Pix sent (the envio list) and the account's balance now (`GET /v2/gn/saldo`). Nothing is
 * kept: the ledger compares it with its books. A PSP that cannot be read is SERVICE_UNAVAILABLE.
 */
export function handleGetPspStatement(deps: PspStatementDeps) {
  return async (command: GetPspStatement): Promise<PspStatement> => {
    const from = new Date(command.from);
    const to = new Date(command.to);
    if (to.getTime() < from.getTime()) throw new CommandError('INVALID_FIELDS', '"to" is before "from"');
    try {
      const [received, sent, balance] = await Promise.all([
        deps.psp.listReceivedPix(from, to),
        deps.envio.listSentPix(from, to),
        deps.envio.readBalance(),
      ]);
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        balance_centavos: balance,
        read_at: (deps.now?.() ?? new Date()).toISOString(),
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
