import express, { type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { type SimulatorContext, cobView, locationBase } from '../context';
import {
  type CobChange,
  type CobStore,
  type NewCob,
  type StoredCob,
  type StoredLocation,
} from '../cob-store';
import { sendProblem } from '../problem';
import { TXID_PATTERN, pixAmount, validateBody } from './validation';

// API Pix: calendario.expiracao defaults to 86400 seconds.
const DEFAULT_EXPIRACAO = 86400;
const COB_PROBLEM = { name: 'CobOperacaoInvalida', title: 'Cobrança inválida.', prefix: 'cob' } as const;

interface CobBody {
  calendario?: { expiracao?: number };
  valor: { original: string };
  chave: string;
  solicitacaoPagador?: string;
}

interface CobRevisionBody {
  calendario?: { expiracao?: number };
  valor?: { original: string };
  solicitacaoPagador?: string;
  status?: 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
  /** Moves the cob to this location (from `POST /loc`), so its BR Code changes. */
  loc?: { id: number };
}

const expiracao = Joi.number().integer().min(1);
const solicitacaoPagador = Joi.string().max(140);

const cobBodySchema = Joi.object<CobBody>({
  calendario: Joi.object({ expiracao }).unknown(true),
  valor: Joi.object({ original: pixAmount.required() }).unknown(true).required(),
  chave: Joi.string().max(77).required(),
  solicitacaoPagador,
}).unknown(true);

const cobRevisionSchema = Joi.object<CobRevisionBody>({
  calendario: Joi.object({ expiracao }).unknown(true),
  valor: Joi.object({ original: pixAmount.required() }).unknown(true),
  solicitacaoPagador,
  status: Joi.string().valid('REMOVIDA_PELO_USUARIO_RECEBEDOR'),
  loc: Joi.object({ id: Joi.number().integer().min(1).required() }).unknown(true),
}).unknown(true);

/** `PUT|PATCH|GET {prefix}/cob/:txid` (API Pix v2, immediate charges). */
export function cobRouter(context: SimulatorContext): Router {
  const { store, settings } = context;
  const router = express.Router();

  router.put('/cob/:txid', (req, res) => {
    const txid = readTxid(req, res);
    const body = txid && validateBody(res, cobBodySchema, req.body, COB_PROBLEM);
    if (!txid || !body) return;
    if (body.chave !== settings.pixKey) {
      sendProblem(
        res,
        400,
        'CobOperacaoInvalida',
        'Cobrança inválida.',
        'A chave não pertence a esta conta.',
        [{ razao: 'Chave Pix não pertence ao usuário recebedor.', propriedade: 'cob.chave' }],
      );
      return;
    }
    const requested: NewCob = {
      txid,
      expiracao: body.calendario?.expiracao ?? DEFAULT_EXPIRACAO,
      valorOriginal: body.valor.original,
      chave: body.chave,
      solicitacaoPagador: body.solicitacaoPagador,
    };
    const existing = store.get(txid);
    if (existing) {
      if (sameCharge(existing, requested)) res.status(200).json(cobView(existing, settings));
      else
        sendProblem(
          res,
          409,
          'CobOperacaoInvalida',
          'txid já utilizado.',
          `O txid ${txid} já identifica outra cobrança.`,
        );
      return;
    }
    const base = locationBase(req.get('host'), settings);
    res.status(201).json(cobView(store.create(requested, base, new Date()), settings));
  });

  router.patch('/cob/:txid', (req, res) => {
    const cob = findCob(context, req, res);
    const body = cob && validateBody(res, cobRevisionSchema, req.body, COB_PROBLEM);
    if (!cob || !body) return;
    if (cob.status !== 'ATIVA') {
      sendProblem(
        res,
        400,
        'CobOperacaoInvalida',
        'Cobrança inválida.',
        `Cobrança com status ${cob.status} não pode ser revisada.`,
      );
      return;
    }
    const change: CobChange = {};
    if (body.loc) {
      const loc = locationFor(store, cob, body.loc.id);
      if (typeof loc === 'string') {
        sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança inválida.', loc, [
          { razao: loc, propriedade: 'cob.loc.id' },
        ]);
        return;
      }
      change.loc = loc;
    }
    if (body.valor) change.valorOriginal = body.valor.original;
    if (body.calendario?.expiracao !== undefined) change.expiracao = body.calendario.expiracao;
    if (body.solicitacaoPagador !== undefined) change.solicitacaoPagador = body.solicitacaoPagador;
    if (body.status) change.status = body.status;
    res.json(cobView(store.revise(cob, change), settings));
  });

  router.get('/cob/:txid', (req, res) => {
    const cob = findCob(context, req, res);
    if (cob) res.json(cobView(cob, settings));
  });

  return router;
}

export function readTxid(req: Request, res: Response): string | undefined {
  const txid = req.params.txid ?? '';
  if (TXID_PATTERN.test(txid)) return txid;
  sendProblem(
    res,
    400,
    'CobOperacaoInvalida',
    'Cobrança inválida.',
    'O txid deve ter de 26 a 35 caracteres [a-zA-Z0-9].',
    [{ razao: 'txid não respeita o schema.', propriedade: 'txid' }],
  );
  return undefined;
}

export function findCob(context: SimulatorContext, req: Request, res: Response): StoredCob | undefined {
  const txid = readTxid(req, res);
  if (txid === undefined) return undefined;
  const cob = context.store.get(txid);
  if (!cob)
    sendProblem(
      res,
      404,
      'CobNaoEncontrado',
      'Cobrança não encontrada.',
      `Nenhuma cobrança com txid ${txid}.`,
    );
  return cob;
}

function sameCharge(existing: StoredCob, requested: NewCob): boolean {
  return (
    existing.valorOriginal === requested.valorOriginal &&
    existing.chave === requested.chave &&
    existing.expiracao === requested.expiracao &&
    existing.solicitacaoPagador === requested.solicitacaoPagador
  );
}

/** The location a revision may move the cob to (one that exists, free or already this cob's), or why not. */
function locationFor(store: CobStore, cob: StoredCob, id: number): StoredLocation | string {
  const loc = store.getLocation(id);
  if (loc === undefined) return `Nenhuma location com id ${id}.`;
  if (loc.txid !== undefined && loc.txid !== cob.txid)
    return `A location ${id} já está vinculada a outra cobrança.`;
  return loc;
}
