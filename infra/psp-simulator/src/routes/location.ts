import express, { type Router } from 'express';
import { type SimulatorContext } from '../context';
import { sendProblem } from '../problem';

/**
 * `GET {prefix}/loc/:id`, the public URL inside the BR Code that the payer's bank fetches. Real PSPs answer a JWS
 * (`application/jose`) signed with their ICP-Brasil key; the simulator answers the same payload as plain JSON.
 */
export function locationRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.get('/loc/:id', (req, res) => {
    const cob = context.store.getByLocationId(req.params.id);
    if (!cob) {
      sendProblem(res, 404, 'PayloadLocationNaoEncontrado', 'Location não encontrada.');
      return;
    }
    res.json({
      revisao: cob.revisao,
      calendario: {
        criacao: cob.criacao.toISOString(),
        apresentacao: new Date().toISOString(),
        expiracao: cob.expiracao,
      },
      valor: { original: cob.valorOriginal },
      chave: cob.chave,
      txid: cob.txid,
      ...(cob.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cob.solicitacaoPagador }),
      status: cob.status,
    });
  });
  return router;
}
