import express, { type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { type SimulatorContext, pixView } from '../context';
import { type DevolucaoRefusal, type PixRecebido, toCentavos } from '../cob-store';
import { readPathId, sendProblem } from '../problem';
import { freeText, listParameters, pixAmount, readListQuery, validateBody } from './validation';

const END_TO_END_ID = /^[a-zA-Z0-9]{32}$/;
const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
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
  descricao: freeText(140),
}).unknown(true);

const DEVOLUCAO_REFUSALS: Record<DevolucaoRefusal, (id: string) => [razao: string, propriedade: string]> = {
  id_reused: (id) => [`O id ${id} já foi utilizado por outra devolução deste Pix.`, 'devolucao.id'],
  exceeds: () => ['A devolução excederia o valor do Pix original.', 'devolucao.valor'],
  window_closed: () => ['O prazo de 90 dias para devolver este Pix já passou.', 'devolucao'],
};

const DEVOLUCAO_PROBLEM = {
  name: 'PixDevolucaoInvalida',
  title: 'Devolução inválida.',
  prefix: 'devolucao',
} as const;

/**
 * `GET {prefix}/pix` (by period, paged), `GET {prefix}/pix/:e2eid` and `PUT|GET {prefix}/pix/:e2eid/devolucao/:id` (API Pix v2): a received Pix and its
 * refunds. A devolução is EM_PROCESSAMENTO when asked for and settles `devolucaoSettleMs` later, DEVOLVIDO (or
 * NAO_REALIZADO under the sandbox rule above); the PSP then calls back with the Pix and its `devolucoes`, as the
 * document asks when a devolução reaches a final status. One still in processing when the simulator stops settles when
 * it starts again (`settleWhenDue`).
 */
export function pixRouter(context: SimulatorContext): Router {
  const router = express.Router();

  // `GET /pix`: the Pix received in [inicio, fim], a page at a time (`PixConsultados`).
  router.get(
    '/pix',
    TokenIssuer.requireScope('pix.read'),
    asyncHandler(async (req, res) => {
      const query = readListQuery(res, req.query, 'PixConsultaInvalida');
      if (!query) return;
      const { pix, total } = await context.store.listPix(
        context.settings.pixKey,
        query.inicio,
        query.fim,
        query.paginaAtual,
        query.itensPorPagina,
      );
      res.json({ parametros: listParameters(query, total), pix: pix.map(pixView) });
    }),
  );

  router.get(
    '/pix/:e2eid',
    TokenIssuer.requireScope('pix.read'),
    asyncHandler(async (req, res) => {
      const pix = await findPix(context, req, res);
      if (pix) res.json(pixView(pix));
    }),
  );

  router.put(
    '/pix/:e2eid/devolucao/:id',
    TokenIssuer.requireScope('pix.write'),
    asyncHandler(async (req, res) => {
      const pix = await findPix(context, req, res);
      const id = pix && readDevolucaoId(req, res);
      const body = id && validateBody(res, devolucaoSchema, req.body, DEVOLUCAO_PROBLEM);
      if (!pix || !id || !body) return;
      const refuse = (razao: string, propriedade: string) =>
        sendProblem(res, 400, 'PixDevolucaoInvalida', 'Devolução inválida.', razao, [{ razao, propriedade }]);
      if (toCentavos(body.valor) === 0)
        return refuse('O valor da devolução não pode ser zero.', 'devolucao.valor');
      const now = context.clock.now();
      const settlesAt = new Date(now.getTime() + context.settings.devolucaoSettleMs);
      const devolucao = await context.store.requestDevolucao(pix.endToEndId, { id, ...body }, now, settlesAt);
      if (typeof devolucao === 'string') return refuse(...DEVOLUCAO_REFUSALS[devolucao](id));
      // Settling twice settles once, so a replay (the devolução it made, answered again) needs no telling apart.
      if (devolucao.status === 'EM_PROCESSAMENTO')
        settleWhenDue(context, { endToEndId: pix.endToEndId, id, descricao: body.descricao, settlesAt });
      res.status(201).json(devolucao);
    }),
  );

  router.get(
    '/pix/:e2eid/devolucao/:id',
    TokenIssuer.requireScope('pix.read'),
    asyncHandler(async (req, res) => {
      const pix = await findPix(context, req, res);
      const id = pix && readDevolucaoId(req, res);
      if (!pix || !id) return;
      const devolucao = pix.devolucoes.find((candidate) => candidate.id === id);
      if (devolucao) res.json(devolucao);
      else sendProblem(res, 404, 'PixDevolucaoNaoEncontrada', 'Devolução não encontrada.');
    }),
  );

  return router;
}

/**
 * Settles a devolução in processing at its time: DEVOLVIDO, or NAO_REALIZADO under the sandbox rule; then calls back
 * with the Pix and its devoluções. Settling is one conditional update, so a devolução is settled (and told) once.
 */
export function settleWhenDue(
  context: SimulatorContext,
  devolucao: { endToEndId: string; id: string; descricao?: string; settlesAt: Date },
): void {
  context.settlements.schedule(devolucao.settlesAt, () => settle(context, devolucao), {
    devolucao: devolucao.id,
  });
}

async function settle(
  context: SimulatorContext,
  devolucao: { endToEndId: string; id: string; descricao?: string },
): Promise<void> {
  const refusal =
    devolucao.descricao === FAILING_DEVOLUCAO_DESCRICAO
      ? 'Devolução recusada pela regra de sandbox simulate:fail.'
      : undefined;
  const pix = await context.store.settle(devolucao.endToEndId, devolucao.id, refusal, context.clock.now());
  if (pix !== undefined) await callBackWithPix(context, pix);
}

/** Calls the receiver's webhook (when registered) with the Pix and its devoluções, as API Pix asks. */
export async function callBackWithPix(context: SimulatorContext, pix: PixRecebido): Promise<void> {
  const webhook = await context.store.webhook(pix.chave);
  if (webhook !== undefined) context.callbacks.dispatch(webhook.webhookUrl, [pixView(pix)]);
}

export async function findPix(
  context: SimulatorContext,
  req: Request,
  res: Response,
): Promise<PixRecebido | undefined> {
  const e2eid = req.params.e2eid ?? '';
  const pix = END_TO_END_ID.test(e2eid) ? await context.store.getPix(e2eid) : undefined;
  if (!pix)
    sendProblem(res, 404, 'PixNaoEncontrado', 'Pix não encontrado.', `Nenhum Pix com e2eid ${e2eid}.`);
  return pix;
}

export function readDevolucaoId(req: Request, res: Response): string | undefined {
  return readPathId(req, res, {
    param: 'id',
    pattern: DEVOLUCAO_ID,
    problem: 'PixDevolucaoInvalida',
    title: 'Devolução inválida.',
    detail: 'O id deve ter de 1 a 35 caracteres [a-zA-Z0-9].',
    property: 'devolucao.id',
  });
}
