import express, { type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { TokenIssuer } from '../auth';
import { type SimulatorContext, pixView } from '../context';
import { type Devolucao, type PixRecebido, toCentavos } from '../cob-store';
import { readPathId, sendProblem } from '../problem';
import { pixAmount, validateBody } from './validation';

const END_TO_END_ID = /^[a-zA-Z0-9]{32}$/;
const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
// BCB rule: a Pix may be refunded within 90 days of its settlement.
const REFUND_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;
/** Sandbox rule: a devolução whose `descricao` is this ends NAO_REALIZADO, so refusals can be tested. */
export const FAILING_DEVOLUCAO_DESCRICAO = 'simulate:fail';

interface DevolucaoBody {
  valor: string;
  natureza?: 'ORIGINAL';
  descricao?: string;
}

// `DevolucaoSolicitada`; the simulator's Pix are plain ones, so `ORIGINAL` is the only nature that applies.
const devolucaoSchema = Joi.object<DevolucaoBody>({
  valor: pixAmount.required(),
  natureza: Joi.string().valid('ORIGINAL'),
  descricao: Joi.string().max(140),
}).unknown(true);

const DEVOLUCAO_PROBLEM = {
  name: 'PixDevolucaoInvalida',
  title: 'Devolução inválida.',
  prefix: 'devolucao',
} as const;

/**
 * `GET {prefix}/pix/:e2eid` and `PUT|GET {prefix}/pix/:e2eid/devolucao/:id` (API Pix v2): a received Pix and its
 * refunds. A devolução is EM_PROCESSAMENTO when asked for and settles `devolucaoSettleMs` later, DEVOLVIDO (or
 * NAO_REALIZADO under the sandbox rule above); the PSP then calls back with the Pix and its `devolucoes`, as the
 * document asks when a devolução reaches a final status.
 */
export function pixRouter(context: SimulatorContext): Router {
  const router = express.Router();

  router.get('/pix/:e2eid', TokenIssuer.requireScope('pix.read'), (req, res) => {
    const pix = findPix(context, req, res);
    if (pix) res.json(pixView(pix));
  });

  router.put('/pix/:e2eid/devolucao/:id', TokenIssuer.requireScope('pix.write'), (req, res) => {
    const pix = findPix(context, req, res);
    const id = pix && readDevolucaoId(req, res);
    const body = id && validateBody(res, devolucaoSchema, req.body, DEVOLUCAO_PROBLEM);
    if (!pix || !id || !body) return;
    const refuse = (razao: string, propriedade: string) =>
      sendProblem(res, 400, 'PixDevolucaoInvalida', 'Devolução inválida.', razao, [{ razao, propriedade }]);
    const existing = pix.devolucoes.find((devolucao) => devolucao.id === id);
    if (existing) {
      // A replay of the same request (its answer lost) gets the devolução it made; anything else reuses the id.
      if (existing.valor === body.valor && existing.descricao === body.descricao)
        res.status(201).json(existing);
      else refuse(`O id ${id} já foi utilizado por outra devolução deste Pix.`, 'devolucao.id');
      return;
    }
    const now = new Date();
    if (toCentavos(body.valor) === 0)
      return refuse('O valor da devolução não pode ser zero.', 'devolucao.valor');
    if (toCentavos(body.valor) > context.store.refundableCentavos(pix))
      return refuse('A devolução excederia o valor do Pix original.', 'devolucao.valor');
    if (now.getTime() - Date.parse(pix.horario) > REFUND_WINDOW_MS)
      return refuse('O prazo de 90 dias para devolver este Pix já passou.', 'devolucao');
    const devolucao = context.store.requestDevolucao(pix, { id, ...body }, now);
    setTimeout(() => settle(context, pix, devolucao), context.settings.devolucaoSettleMs).unref();
    res.status(201).json(devolucao);
  });

  router.get('/pix/:e2eid/devolucao/:id', TokenIssuer.requireScope('pix.read'), (req, res) => {
    const pix = findPix(context, req, res);
    const id = pix && readDevolucaoId(req, res);
    if (!pix || !id) return;
    const devolucao = pix.devolucoes.find((candidate) => candidate.id === id);
    if (devolucao) res.json(devolucao);
    else sendProblem(res, 404, 'PixDevolucaoNaoEncontrada', 'Devolução não encontrada.');
  });

  return router;
}

function settle(context: SimulatorContext, pix: PixRecebido, devolucao: Devolucao): void {
  if (devolucao.descricao === FAILING_DEVOLUCAO_DESCRICAO) {
    devolucao.status = 'NAO_REALIZADO';
    devolucao.motivo = 'Devolução recusada pela regra de sandbox simulate:fail.';
  } else {
    devolucao.status = 'DEVOLVIDO';
    devolucao.horario.liquidacao = new Date().toISOString();
  }
  const webhook = context.webhooks.get(pix.chave);
  if (webhook !== undefined) context.callbacks.dispatch(webhook.webhookUrl, [pixView(pix)]);
}

function findPix(context: SimulatorContext, req: Request, res: Response): PixRecebido | undefined {
  const e2eid = req.params.e2eid ?? '';
  const pix = END_TO_END_ID.test(e2eid) ? context.store.getPix(e2eid) : undefined;
  if (!pix)
    sendProblem(res, 404, 'PixNaoEncontrado', 'Pix não encontrado.', `Nenhum Pix com e2eid ${e2eid}.`);
  return pix;
}

function readDevolucaoId(req: Request, res: Response): string | undefined {
  return readPathId(req, res, {
    param: 'id',
    pattern: DEVOLUCAO_ID,
    problem: 'PixDevolucaoInvalida',
    title: 'Devolução inválida.',
    detail: 'O id deve ter de 1 a 35 caracteres [a-zA-Z0-9].',
    property: 'devolucao.id',
  });
}
