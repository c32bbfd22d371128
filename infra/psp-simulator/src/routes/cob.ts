import express, { type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { type SimulatorContext, cobView, locationBase } from '../context';
import {
  type CobChange,
  type Devedor,
  type NewCob,
  type RevisionRefusal,
  type StoredCob,
} from '../cob-store';
import { readPathId, sendProblem } from '../problem';
import { TXID_PATTERN, freeText, pixAmount, validateBody } from './validation';

// API Pix: calendario.expiracao defaults to 86400 seconds.
const DEFAULT_EXPIRACAO = 86400;
const COB_PROBLEM = { name: 'CobOperacaoInvalida', title: 'Cobrança inválida.', prefix: 'cob' } as const;

interface Valor {
  original: string;
  modalidadeAlteracao?: 0 | 1;
}

interface CobBody {
  calendario: { expiracao?: number };
  valor: Valor;
  chave: string;
  solicitacaoPagador?: string;
  /** One of `cpf` and `cnpj` (the schema holds it). */
  devedor?: { cpf?: string; cnpj?: string; nome: string };
}

interface CobRevisionBody {
  calendario?: { expiracao?: number };
  valor?: Partial<Valor>;
  solicitacaoPagador?: string;
  status?: 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
  /** Moves the cob to this location (from `POST /loc`), so its BR Code changes. */
  loc?: { id: number; tipoCob: 'cob' };
}

const expiracao = Joi.number().integer().min(1);
const solicitacaoPagador = freeText(140);
const modalidadeAlteracao = Joi.number().valid(0, 1);
// `PessoaFisica` | `PessoaJuridica`: a CPF or a CNPJ (never both, the document says) and always the name.
const devedor = Joi.object({
  cpf: Joi.string().pattern(/^\d{11}$/),
  cnpj: Joi.string().pattern(/^[0-9A-Z]{14}$/),
  nome: Joi.string().min(1).max(200).required(),
})
  .xor('cpf', 'cnpj')
  .unknown(true);

// `CobSolicitada`: calendario, valor.original and chave required.
const cobBodySchema = Joi.object<CobBody>({
  calendario: Joi.object({ expiracao }).unknown(true).required(),
  valor: Joi.object({ original: pixAmount.required(), modalidadeAlteracao }).unknown(true).required(),
  chave: Joi.string().max(77).required(),
  solicitacaoPagador,
  devedor,
}).unknown(true);

// `CobRevisada`; its `loc` is a `PayloadLocationCob`, whose `id` and `tipoCob` are both required.
const cobRevisionSchema = Joi.object<CobRevisionBody>({
  calendario: Joi.object({ expiracao }).unknown(true),
  valor: Joi.object({ original: pixAmount, modalidadeAlteracao }).unknown(true),
  solicitacaoPagador,
  status: Joi.string().valid('REMOVIDA_PELO_USUARIO_RECEBEDOR'),
  loc: Joi.object({
    id: Joi.number().integer().min(1).required(),
    tipoCob: Joi.string().valid('cob').required(),
  }).unknown(true),
}).unknown(true);

/** `PUT|PATCH|GET {prefix}/cob/:txid` (API Pix v2, immediate charges). */
export function cobRouter(context: SimulatorContext): Router {
  const { store, settings } = context;
  const router = express.Router();

  router.put(
    '/cob/:txid',
    TokenIssuer.requireScope('cob.write'),
    asyncHandler(async (req, res) => {
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
        expiracao: body.calendario.expiracao ?? DEFAULT_EXPIRACAO,
        valorOriginal: body.valor.original,
        modalidadeAlteracao: body.valor.modalidadeAlteracao ?? 0,
        chave: body.chave,
        solicitacaoPagador: body.solicitacaoPagador,
        ...(body.devedor
          ? {
              devedor: devedorOf(body.devedor),
            }
          : {}),
      };
      // A txid names one cob for good: a PUT that meets one, even a replay of the same request whose answer was lost,
      // is refused with a 400 problem as PSPs do (the document lists no 409); the client reads the cob back.
      const created = await store.create(requested, locationBase(req.get('host')), context.clock.now());
      if (created === 'txid_taken') {
        sendProblem(
          res,
          400,
          'CobOperacaoInvalida',
          'Cobrança inválida.',
          `O txid ${txid} já foi utilizado.`,
          [{ razao: 'O campo cob.txid encontra-se em uso.', propriedade: 'cob.txid' }],
        );
        return;
      }
      res.status(201).json(cobView(created, settings));
    }),
  );

  router.patch(
    '/cob/:txid',
    TokenIssuer.requireScope('cob.write'),
    asyncHandler(async (req, res) => {
      const cob = await findCob(context, req, res);
      const body = cob && validateBody(res, cobRevisionSchema, req.body, COB_PROBLEM);
      if (!cob || !body) return;
      if (cob.status !== 'ATIVA') return refuseRevision(res, cob.status);
      const change: CobChange = {
        valorOriginal: body.valor?.original,
        modalidadeAlteracao: body.valor?.modalidadeAlteracao,
        expiracao: body.calendario?.expiracao,
        solicitacaoPagador: body.solicitacaoPagador,
      };
      if (body.status && Object.values(change).some((value) => value !== undefined)) {
        const reason = 'Remover a cobrança junto com outras alterações não faz sentido.';
        sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança inválida.', reason, [
          { razao: reason, propriedade: 'cob.status' },
        ]);
        return;
      }
      change.status = body.status;
      const revised = await store.revise(cob.txid, change, body.loc?.id);
      if (typeof revised !== 'string') {
        res.json(cobView(revised, settings));
        return;
      }
      // It may have left ATIVA since it was read (a payer, the PSP): its status now.
      if (revised === 'not_active')
        return refuseRevision(res, (await store.get(cob.txid))?.status ?? cob.status);
      const reason = LOCATION_REFUSALS[revised](body.loc!.id);
      sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança inválida.', reason, [
        { razao: reason, propriedade: 'cob.loc.id' },
      ]);
    }),
  );

  router.get(
    '/cob/:txid',
    TokenIssuer.requireScope('cob.read'),
    asyncHandler(async (req, res) => {
      const cob = await findCob(context, req, res);
      if (cob) res.json(cobView(cob, settings));
    }),
  );

  return router;
}

export function readTxid(req: Request, res: Response): string | undefined {
  return readPathId(req, res, {
    param: 'txid',
    pattern: TXID_PATTERN,
    problem: 'CobOperacaoInvalida',
    title: 'Cobrança inválida.',
    detail: 'O txid deve ter de 26 a 35 caracteres [a-zA-Z0-9].',
    property: 'txid',
  });
}

export async function findCob(
  context: SimulatorContext,
  req: Request,
  res: Response,
): Promise<StoredCob | undefined> {
  const txid = readTxid(req, res);
  if (txid === undefined) return undefined;
  const cob = await context.store.get(txid);
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

function refuseRevision(res: Response, status: string): void {
  const reason = `Cobrança com status ${status} não pode ser revisada.`;
  sendProblem(res, 400, 'CobOperacaoInvalida', 'Cobrança inválida.', reason);
}

/** Why a cob cannot move to the location a revision names (one that exists, free or already this cob's). */
const LOCATION_REFUSALS: Record<Exclude<RevisionRefusal, 'not_active'>, (id: number) => string> = {
  no_location: (id) => `Nenhuma location com id ${id}.`,
  location_taken: (id) => `A location ${id} já está vinculada a outra cobrança.`,
  location_kind: (id) => `A location ${id} é de uma cobrança com vencimento (tipoCob cobv).`,
};

/** The debtor a validated body names: its CPF, or else its CNPJ, with the name. */
function devedorOf({ cpf, cnpj, nome }: NonNullable<CobBody['devedor']>): Devedor {
  return cpf === undefined ? { cnpj: cnpj!, nome } : { cpf, nome };
}
