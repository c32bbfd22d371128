import express, { type Router } from 'express';
import Joi from 'joi';
import { type SimulatorContext, cobView, pixView } from '../context';
import { type PaymentRefusal, toCentavos } from '../cob-store';
import { sendProblem } from '../problem';
import { findCob } from './cob';
import { pixAmount, validateBody } from './validation';

const paymentSchema = Joi.object<{ valor?: string }>({ valor: pixAmount }).unknown(true);

const REFUSALS: Record<PaymentRefusal, string> = {
  not_active: 'não está ATIVA e não pode acolher outro pagamento',
  expired: 'está expirada',
  fixed_amount: 'tem valor fixo (valor.modalidadeAlteracao 0): o Pix deve ser do valor original',
};

/**
 * Sandbox-only operations, not part of API Pix:
 * - `POST {prefix}/cob/pagar/:txid` `{valor?}`: a payer pays (default: the whole amount), refused as a real PSP
 *   refuses the Pix (a cob not ATIVA or expired, another amount into a fixed-amount cob); the callback follows.
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
    const pix = store.receive(cob, toCentavos(body.valor ?? cob.valorOriginal), new Date());
    if (typeof pix === 'string') {
      const detail = `Pix recusado: a cobrança (status ${cob.status}) ${REFUSALS[pix]}.`;
      sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança não pode ser paga.', detail);
      return;
    }
    const webhook = context.webhooks.get(cob.chave);
    if (webhook !== undefined) context.callbacks.dispatch(webhook.webhookUrl, [pixView(pix)]);
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
