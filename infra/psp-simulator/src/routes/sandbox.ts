import express, { type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
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

  router.post(
    '/cob/pagar/:txid',
    asyncHandler(async (req, res) => {
      const cob = await findCob(context, req, res);
      const body =
        cob &&
        validateBody(res, paymentSchema, req.body, {
          name: 'CobOperacaoInvalida',
          title: 'Pagamento inválido.',
          prefix: 'pagamento',
        });
      if (!cob || !body) return;
      const paid = await store.receive(
        cob.txid,
        body.valor === undefined ? undefined : toCentavos(body.valor),
        new Date(),
      );
      if (typeof paid === 'string') {
        // The status the payer met: another payer may have concluded the cob since it was read.
        const status = (await store.get(cob.txid))?.status ?? cob.status;
        const detail = `Pix recusado: a cobrança (status ${status}) ${REFUSALS[paid]}.`;
        sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança não pode ser paga.', detail);
        return;
      }
      const webhook = await store.webhook(cob.chave);
      if (webhook !== undefined) context.callbacks.dispatch(webhook.webhookUrl, [pixView(paid.pix)]);
      res.json(cobView(paid.cob, settings));
    }),
  );

  router.post(
    '/cob/:txid/expirar',
    asyncHandler(async (req, res) => {
      const cob = await findCob(context, req, res);
      if (!cob) return;
      const removed =
        cob.status === 'ATIVA' ? await store.revise(cob.txid, { status: 'REMOVIDA_PELO_PSP' }) : 'not_active';
      if (typeof removed !== 'string') {
        res.json(cobView(removed, settings));
        return;
      }
      const status = (await store.get(cob.txid))?.status ?? cob.status;
      sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança inválida.', `Cobrança já está ${status}.`);
    }),
  );

  return router;
}
