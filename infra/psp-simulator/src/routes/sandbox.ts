import express, { type Router } from 'express';
import Joi from 'joi';
import { type SimulatorContext, cobView } from '../context';
import { toCentavos } from '../cob-store';
import { sendProblem } from '../problem';
import { findCob } from './cob';
import { pixAmount, validateBody } from './validation';

const paymentSchema = Joi.object<{ valor?: string }>({ valor: pixAmount }).unknown(true);

/**
 * Sandbox-only operations, not part of API Pix:
 * - `POST {prefix}/cob/pagar/:txid` `{valor?}`: a payer pays (default: the whole amount); the callback follows.
 * - `POST {prefix}/cob/:txid/expirar`: the PSP removes the charge (status REMOVIDA_PELO_PSP).
 */
export function sandboxRouter(context: SimulatorContext): Router {
  const { store, settings } = context;
  const router = express.Router();

  router.post('/cob/pagar/:txid', (req, res) => {
    const cob = findCob(context, req, res);
    const body =
      cob &&
      validateBody(res, paymentSchema, req.body, {
        name: 'CobOperacaoInvalida',
        title: 'Pagamento inválido.',
        prefix: 'pagamento',
      });
    if (!cob || !body) return;
    const now = new Date();
    if (cob.status !== 'ATIVA' || store.isExpired(cob, now)) {
      const state = cob.status === 'ATIVA' ? 'expirada' : cob.status;
      sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança não pode ser paga.', `Cobrança ${state}.`);
      return;
    }
    const pix = store.receive(cob, toCentavos(body.valor ?? cob.valorOriginal), now);
    const webhookUrl = context.webhookUrlByChave.get(cob.chave);
    if (webhookUrl !== undefined) context.callbacks.dispatch(webhookUrl, [pix]);
    res.json(cobView(cob, settings));
  });

  router.post('/cob/:txid/expirar', (req, res) => {
    const cob = findCob(context, req, res);
    if (!cob) return;
    if (cob.status !== 'ATIVA') {
      sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança inválida.', `Cobrança já está ${cob.status}.`);
      return;
    }
    res.json(cobView(store.revise(cob, { status: 'REMOVIDA_PELO_PSP' }), settings));
  });

  return router;
}
