import express, { type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { type SimulatorContext, cobView, pixView } from '../context';
import { type DevolucaoNatureza, type PayerReport, type PaymentRefusal, toCentavos } from '../cob-store';
import { sendProblem } from '../problem';
import { findCob } from './cob';
import { callBackWithPix, findPix, readDevolucaoId } from './pix';
import { pixAmount, validateBody } from './validation';
import { approveByCharge } from './rec';

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

interface MedBody {
  valor?: string;
  natureza?: Exclude<DevolucaoNatureza, 'ORIGINAL'>;
}
const medSchema = Joi.object<MedBody>({
  valor: pixAmount,
  natureza: Joi.string().valid('MED_FRAUDE', 'MED_OPERACIONAL'),
}).unknown(true);

interface MedEndBody {
  status: 'DEVOLVIDO' | 'NAO_REALIZADO';
}
const medEndSchema = Joi.object<MedEndBody>({
  status: Joi.string().valid('DEVOLVIDO', 'NAO_REALIZADO').required(),
}).unknown(true);

/** The `motivo` of a MED that ends without the money going back: the analysis found for the receiver. */
export const MED_NOT_UPHELD = 'MED encerrado sem devolução: análise concluída em favor do usuário recebedor.';

const MED_PROBLEM = {
  name: 'PixDevolucaoInvalida',
  title: 'Devolução inválida.',
  prefix: 'devolucao',
} as const;

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
 * - `PUT {prefix}/pix/:e2eid/med/:id` `{valor?, natureza?}`: the payer's bank raises a MED on a received Pix (default:
 *   its whole amount, `MED_FRAUDE`): a devolução of that nature, EM_PROCESSAMENTO, read like any other
 *   (`GET /pix/:e2eid/devolucao/:id`); the callback follows with the Pix and its devoluções. A replay answers the same.
 *   In the Efí mode the MED also opens an infraction (`routes/infracao.ts`), ended with the MED.
 * - `POST {prefix}/pix/:e2eid/med/:id/concluir` `{status}`: the MED ends: DEVOLVIDO (the money went back to the payer)
 *   or NAO_REALIZADO (found for the receiver); the callback follows.
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
        context.clock.now(),
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
      // Journey 3 of Pix Automático: this payment also authorizes the recurrence that names the cob.
      await approveByCharge(context, cob.txid, paid.pix);
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

  router.put(
    '/pix/:e2eid/med/:id',
    asyncHandler(async (req, res) => {
      const pix = await findPix(context, req, res);
      const id = pix && readDevolucaoId(req, res);
      const body = id && validateBody(res, medSchema, req.body, MED_PROBLEM);
      if (!pix || !id || !body) return;
      const now = context.clock.now();
      const devolucao = await store.requestDevolucao(
        pix.endToEndId,
        { id, valor: body.valor ?? pix.valor, natureza: body.natureza ?? 'MED_FRAUDE' },
        now,
        now,
      );
      if (typeof devolucao === 'string') {
        const detail = `MED recusado (${devolucao}): excede o que o Pix ainda pode devolver, ou o id já foi usado.`;
        sendProblem(res, 400, 'PixDevolucaoInvalida', 'Devolução inválida.', detail);
        return;
      }
      // Efí also opens an infraction for the MED, which the receiver may defend (`GET /v2/gn/infracoes`).
      if (settings.profile.medDefence !== null)
        await context.infracoes.raise(
          {
            chave: pix.chave,
            endToEndId: pix.endToEndId,
            devolucaoId: id,
            valorCentavos: toCentavos(devolucao.valor),
          },
          now,
        );
      await callBackWithPix(context, (await store.getPix(pix.endToEndId))!);
      res.status(201).json(devolucao);
    }),
  );

  router.post(
    '/pix/:e2eid/med/:id/concluir',
    asyncHandler(async (req, res) => {
      const pix = await findPix(context, req, res);
      const id = pix && readDevolucaoId(req, res);
      const body = id && validateBody(res, medEndSchema, req.body, MED_PROBLEM);
      if (!pix || !id || !body) return;
      const med = pix.devolucoes.find(
        (devolucao) => devolucao.id === id && devolucao.natureza !== 'ORIGINAL',
      );
      if (!med) {
        sendProblem(res, 404, 'PixDevolucaoNaoEncontrada', 'Devolução não encontrada.', `Nenhum MED ${id}.`);
        return;
      }
      const refusal = body.status === 'NAO_REALIZADO' ? MED_NOT_UPHELD : undefined;
      const settled = await store.settle(pix.endToEndId, id, refusal, context.clock.now());
      const current = settled ?? (await store.getPix(pix.endToEndId))!;
      const ended = current.devolucoes.find((devolucao) => devolucao.id === id)!;
      // A replay (the same end, its answer lost) answers the same; another end than the one it had is refused.
      if (ended.status !== body.status) {
        sendProblem(
          res,
          400,
          'PixDevolucaoInvalida',
          'Devolução inválida.',
          `O MED já está ${ended.status}.`,
        );
        return;
      }
      if (settled !== undefined) {
        await context.infracoes.end(pix.endToEndId, id, body.status === 'DEVOLVIDO', context.clock.now());
        await callBackWithPix(context, settled);
      }
      res.json(ended);
    }),
  );

  return router;
}
