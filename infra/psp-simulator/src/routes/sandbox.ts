import express, { type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { type SimulatorContext, cobView, pixView } from '../context';
import { type PayerReport, type PaymentRefusal, toCentavos } from '../cob-store';
import { sendProblem } from '../problem';
import { findCob } from './cob';
import { pixAmount, validateBody } from './validation';

/**
 * The payer the sandbox pays as unless told otherwise: a fictitious person whose CPF (123.456.789-09) is valid in
 * form only. A PSP reporting who paid lists them on the Pix, in the callback and in every read of it.
 */
export const SANDBOX_PAYER = { cpf: '12345678909', nome: 'Fulana Pagadora de Tal' } as const;

interface PaymentBody {
  valor?: string;
  /** Who paid, as reported: an object (`{ cpf | cnpj, nome }`, passed on as given), or null to report nobody. */
  pagador?: unknown;
  infoPagador?: string;
}

const paymentSchema = Joi.object<PaymentBody>({
  valor: pixAmount,
  pagador: Joi.any(),
  infoPagador: Joi.string().max(140),
}).unknown(true);

const REFUSALS: Record<PaymentRefusal, string> = {
  not_active: 'não está ATIVA e não pode acolher outro pagamento',
  expired: 'está expirada',
  fixed_amount: 'tem valor fixo (valor.modalidadeAlteracao 0): o Pix deve ser do valor original',
};

/** The payer the Pix lists: SANDBOX_PAYER unless the body names one, nobody for `pagador: null`. */
function payerReport(body: PaymentBody): PayerReport {
  const pagador = body.pagador === undefined ? SANDBOX_PAYER : body.pagador;
  return {
    ...(pagador === null ? {} : { pagador }),
    ...(body.infoPagador === undefined ? {} : { infoPagador: body.infoPagador }),
  };
}

/**
 * Sandbox-only operations, not part of API Pix:
 * - `POST {prefix}/cob/pagar/:txid` `{valor?, pagador?, infoPagador?}`: a payer pays (default: the whole amount, as
 *   SANDBOX_PAYER), refused as a real PSP refuses the Pix (a cob not ATIVA or expired, another amount into a
 *   fixed-amount cob); the callback follows, listing who paid.
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
        payerReport(body),
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
