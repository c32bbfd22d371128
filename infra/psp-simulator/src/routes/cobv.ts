import express, { type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import {
  type SimulatorContext,
  PAYLOAD_PATH,
  cobvPayload,
  cobvView,
  locationBase,
  pixView,
} from '../context';
import { brasiliaDay, dateOf, dayOf } from '../business-days';
import { toCentavos } from '../cob-store';
import { abatimentoCentavos, payableWindow } from '../cobv-amount';
import {
  type CobvData,
  type CobvDevedor,
  type CobvRegras,
  type CobvWriteRefusal,
  type InfoAdicional,
  type StoredCobv,
  amountDueOn,
} from '../cobv-store';
import { JWKS_PATH } from '../payload-signer';
import { type Violation, readPathId, sendProblem } from '../problem';
import { SANDBOX_PAYER } from './sandbox';
import {
  DEBTOR_FILTERS,
  SCHEMA_MESSAGES,
  TXID_PATTERN,
  cnpj,
  cpf,
  freeText,
  givenFilters,
  isoDate,
  listParameters,
  pixAmount,
  readListQuery,
  validateBody,
} from './validation';

// API Pix `CobDataDeVencimento.validadeAposVencimento`: 30 days unless the request says otherwise.
const DEFAULT_VALIDADE_APOS_VENCIMENTO = 30;
const INT32_MAX = 2_147_483_647;
const COBV_PROBLEM = { name: 'CobVOperacaoInvalida', title: 'Cobrança inválida.', prefix: 'cobv' } as const;

interface Valor {
  original?: string;
  multa?: { modalidade: number; valorPerc: string };
  juros?: { modalidade: number; valorPerc: string };
  abatimento?: { modalidade: number; valorPerc: string };
  desconto?: {
    modalidade: number;
    valorPerc?: string;
    descontoDataFixa?: Array<{ data: string; valorPerc: string }>;
  };
}

interface CobvBody {
  calendario: { dataDeVencimento: string; validadeAposVencimento?: number };
  devedor: CobvDevedor;
  loc?: { id: number; tipoCob: 'cobv' };
  valor: Valor & { original: string };
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
}

interface CobvRevisionBody extends Partial<Omit<CobvBody, 'valor'>> {
  valor?: Valor;
  status?: 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
}

/** `valorPerc`: an amount or a percentage, `\d{1,10}\.\d{2}`. */
const valorPerc = Joi.string().pattern(/^\d{1,10}\.\d{2}$/);
const rule = (maxModalidade: number) =>
  Joi.object({
    modalidade: Joi.number().integer().min(1).max(maxModalidade).required(),
    valorPerc: valorPerc.required(),
  }).unknown(true);
const valor = (original: Joi.Schema) =>
  Joi.object({
    original,
    multa: rule(2),
    juros: rule(8),
    abatimento: rule(2),
    desconto: Joi.object({
      modalidade: Joi.number().integer().min(1).max(6).required(),
      valorPerc,
      descontoDataFixa: Joi.array()
        .items(Joi.object({ data: isoDate.required(), valorPerc: valorPerc.required() }).unknown(true))
        .min(1)
        .max(3)
        .unique(),
    }).unknown(true),
  }).unknown(true);
// `DadosDevedor`: a CPF or a CNPJ (never both) with valid check digits, the name, and optional contact and address.
const devedor = Joi.object({
  cpf,
  cnpj,
  nome: freeText(200).min(1).required(),
  email: freeText(254),
  logradouro: freeText(200),
  cidade: freeText(200),
  uf: freeText(2),
  cep: freeText(8),
})
  .xor('cpf', 'cnpj')
  .unknown(true);
const calendario = Joi.object({
  dataDeVencimento: isoDate.required(),
  validadeAposVencimento: Joi.number().integer().min(0).max(INT32_MAX),
}).unknown(true);
// `PayloadLocationCob`: `id` and `tipoCob` both required; a cobv's location is of type `cobv`.
const loc = Joi.object({
  id: Joi.number().integer().min(1).required(),
  tipoCob: Joi.string().valid('cobv').required(),
}).unknown(true);
// `CobBase.infoAdicionais`: at most 50 pairs of a name (50) and a value (200).
const infoAdicionais = Joi.array()
  .items(Joi.object({ nome: freeText(50).required(), valor: freeText(200).required() }).unknown(true))
  .max(50);
const common = {
  loc,
  solicitacaoPagador: freeText(140),
  infoAdicionais,
};

// `CobVSolicitada`: calendario (with dataDeVencimento), devedor, valor.original and chave required.
const cobvBodySchema = Joi.object<CobvBody>({
  calendario: calendario.required(),
  devedor: devedor.required(),
  valor: valor(pixAmount.required()).required(),
  chave: Joi.string().max(77).required(),
  ...common,
})
  .unknown(true)
  .messages(SCHEMA_MESSAGES);

// `CobVRevisada`: every part optional; `status` only to remove it.
const cobvRevisionSchema = Joi.object<CobvRevisionBody>({
  calendario,
  devedor,
  valor: valor(pixAmount),
  chave: Joi.string().max(77),
  status: Joi.string().valid('REMOVIDA_PELO_USUARIO_RECEBEDOR'),
  ...common,
})
  .unknown(true)
  .messages(SCHEMA_MESSAGES);

/**
 * `PUT|PATCH|GET {prefix}/cobv/:txid` and `GET {prefix}/cobv` (API Pix v2, charges with a due date), scopes
 * `cobv.write` and `cobv.read`. A PUT names a new cobv, or states again or anew one that exists (API Pix lists, among
 * a PUT's refusals, only "the charge exists, is not ATIVA, and the request seeks to change it"): the same request
 * again answers the cobv as it is, a different one revises it while it is ATIVA. Every request is checked as the
 * document's `CobVOperacaoInvalida` violations state (schema, the debtor's check digits, the key, the location's kind
 * and use, a due date not before the day it is created, abatimento and each discount under the original amount or
 * 100%, discount dates not after the due date, the discount's form per modalidade).
 */
export function cobvRouter(context: SimulatorContext): Router {
  const { cobvs, settings, clock } = context;
  const router = express.Router();

  router.put(
    '/cobv/:txid',
    TokenIssuer.requireScope('cobv.write'),
    asyncHandler(async (req, res) => {
      const txid = readTxid(req, res);
      const body = txid && validateBody(res, cobvBodySchema, req.body, COBV_PROBLEM);
      if (!txid || !body) return;
      const now = clock.now();
      const data: CobvData = {
        dataDeVencimento: body.calendario.dataDeVencimento,
        validadeAposVencimento: body.calendario.validadeAposVencimento ?? DEFAULT_VALIDADE_APOS_VENCIMENTO,
        valorOriginal: body.valor.original,
        regras: regrasOf(body.valor),
        chave: body.chave,
        devedor: devedorOf(body.devedor),
        ...(body.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: body.solicitacaoPagador }),
        ...(body.infoAdicionais === undefined ? {} : { infoAdicionais: body.infoAdicionais.map(infoOf) }),
      };
      // A cobv that exists was created on its own day: stating it again after that day (a replay) is no new cobv.
      const existing = await cobvs.get(txid);
      const violacoes = semanticViolations(context, data, brasiliaDay(existing?.criacao ?? now));
      if (violacoes.length > 0) return refuse(res, violacoes[0]!.razao, violacoes);
      const put = await cobvs.put(txid, data, body.loc?.id, locationBase(req.get('host')), now);
      if (typeof put === 'string') return refuseWrite(context, res, txid, put, body.loc?.id);
      res.status(201).json(cobvView(put.cobv, settings));
    }),
  );

  router.patch(
    '/cobv/:txid',
    TokenIssuer.requireScope('cobv.write'),
    asyncHandler(async (req, res) => {
      const cobv = await findCobv(context, req, res);
      const body = cobv && validateBody(res, cobvRevisionSchema, req.body, COBV_PROBLEM);
      if (!cobv || !body) return;
      if (cobv.status !== 'ATIVA') return refuseWrite(context, res, cobv.txid, 'not_active');
      const { status, loc: moveTo, ...changes } = body;
      if (status !== undefined && (Object.keys(changes).length > 0 || moveTo !== undefined)) {
        const reason = 'Remover a cobrança junto com outras alterações não faz sentido.';
        return refuse(res, reason, [{ razao: reason, propriedade: 'cobv.status' }]);
      }
      const revise = (current: StoredCobv): CobvData => ({
        dataDeVencimento: changes.calendario?.dataDeVencimento ?? current.dataDeVencimento,
        validadeAposVencimento: changes.calendario?.validadeAposVencimento ?? current.validadeAposVencimento,
        valorOriginal: changes.valor?.original ?? current.valorOriginal,
        regras: { ...current.regras, ...regrasOf(changes.valor ?? {}) },
        chave: changes.chave ?? current.chave,
        devedor: changes.devedor ? devedorOf(changes.devedor) : current.devedor,
        ...(current.solicitacaoPagador === undefined && changes.solicitacaoPagador === undefined
          ? {}
          : { solicitacaoPagador: changes.solicitacaoPagador ?? current.solicitacaoPagador }),
        ...(changes.infoAdicionais === undefined
          ? current.infoAdicionais === undefined
            ? {}
            : { infoAdicionais: current.infoAdicionais }
          : { infoAdicionais: changes.infoAdicionais.map(infoOf) }),
      });
      // The revised cobv must hold as a new one would, its due date not before the day it was created: checked on the
      // cobv as it is once locked, since a PUT racing this PATCH may have changed what the changes apply to.
      const checkedRevision = (current: StoredCobv): CobvData => {
        const data = revise(current);
        // A removal changes nothing the rules are about.
        const violacoes =
          status === undefined ? semanticViolations(context, data, brasiliaDay(current.criacao)) : [];
        if (violacoes.length > 0) throw new RevisionRefused(violacoes);
        return data;
      };
      let revised: Awaited<ReturnType<typeof cobvs.revise>>;
      try {
        revised = await cobvs.revise(cobv.txid, checkedRevision, moveTo?.id, status);
      } catch (err) {
        if (err instanceof RevisionRefused) return refuse(res, err.message, err.violacoes);
        throw err;
      }
      if (typeof revised === 'string') return refuseWrite(context, res, cobv.txid, revised, moveTo?.id);
      res.json(cobvView(revised, settings));
    }),
  );

  router.get(
    '/cobv/:txid',
    TokenIssuer.requireScope('cobv.read'),
    asyncHandler(async (req, res) => {
      const cobv = await findCobv(context, req, res);
      if (!cobv) return;
      const asked = req.query.revisao;
      if (asked === undefined) return void res.json(cobvView(cobv, settings));
      const revisao = typeof asked === 'string' && /^\d{1,9}$/.test(asked) ? Number(asked) : undefined;
      const revision = revisao === undefined ? undefined : await cobvs.revision(cobv.txid, revisao);
      if (revision === undefined) {
        const reason = `A cobrança não tem a revisão ${String(asked)}.`;
        sendProblem(res, 400, 'CobVConsultaInvalida', 'Consulta inválida.', reason, [
          { razao: reason, propriedade: 'revisao' },
        ]);
        return;
      }
      res.json(cobvView(revision, settings));
    }),
  );

  // `GET /cobv`: the cobvs created in [inicio, fim], filtered and a page at a time (`CobsVConsultadas`).
  router.get(
    '/cobv',
    TokenIssuer.requireScope('cobv.read'),
    asyncHandler(async (req, res) => {
      const query = readListQuery(res, req.query, 'CobVConsultaInvalida', LIST_FILTERS);
      if (!query) return;
      const filters = query.filters;
      // No cobv of this simulator belongs to a batch (`/lotecobv` is not served): a batch's list is empty.
      const { cobvs: found, total } =
        filters.loteCobVId === undefined
          ? await cobvs.list({
              chave: settings.pixKey,
              inicio: query.inicio,
              fim: query.fim,
              cpf: filters.cpf,
              cnpj: filters.cnpj,
              status: filters.status,
              locationPresente:
                filters.locationPresente === undefined ? undefined : filters.locationPresente === 'true',
              page: query.paginaAtual,
              perPage: query.itensPorPagina,
            })
          : { cobvs: [], total: 0 };
      // The batch asked for is not stated again.
      const { loteCobVId: _batch, ...given } = filters;
      res.json({
        parametros: listParameters(query, total, givenFilters(given, ['locationPresente'])),
        cobs: found.map((cobv) => cobvView(cobv, settings)),
      });
    }),
  );

  return router;
}

/** The filters `GET /cobv` takes beside the period and the page (API Pix 2.9.0). */
const LIST_FILTERS = {
  ...DEBTOR_FILTERS,
  locationPresente: Joi.string().valid('true', 'false'),
  status: Joi.string().valid('ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP'),
  loteCobVId: Joi.string().pattern(/^\d{1,10}$/),
};

/**
 * The public location of a cobv, outside API Pix's authenticated prefix: `GET /qr/v2/cobv/{pixUrlAccessToken}`
 * `?codMun&DPP` answers the cobv's payload (`CobVPayload`) as a signed JWS, with `valor.final` for the intended
 * payment date `DPP` (default: the simulator's today, in Brasília). `DPP` before today or past the payable window, or
 * a malformed `codMun` (7 digits, a state code IBGE uses first), is `CobPayloadOperacaoInvalida`; a location no cobv
 * is at, `CobPayloadNaoEncontrado` (404). Without `DPP`, a cobv past its window is not found either: there is no day
 * left it could be paid on, and so no amount to show (the document leaves a PSP free to serve or refuse it).
 */
export function cobvPayloadRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.get(
    `${PAYLOAD_PATH}/cobv/:pixUrlAccessToken`,
    asyncHandler(async (req, res) => {
      const cobv = await context.cobvs.getByAccessToken(req.params.pixUrlAccessToken ?? '');
      if (!cobv) {
        sendProblem(res, 404, 'CobPayloadNaoEncontrado', 'Cobrança não encontrada para a location.');
        return;
      }
      const now = context.clock.now();
      const today = brasiliaDay(now);
      const violacoes: Violation[] = [];
      const { codMun, DPP } = req.query;
      if (codMun !== undefined && !(typeof codMun === 'string' && validCodMun(codMun)))
        violacoes.push({
          razao: 'codMun não é um código de município do IBGE (7 dígitos).',
          propriedade: 'codMun',
        });
      const intended = DPP === undefined ? today : typeof DPP === 'string' ? dayOf(DPP) : undefined;
      if (intended === undefined)
        violacoes.push({ razao: 'DPP deve ser uma data YYYY-MM-DD (ISO 8601).', propriedade: 'DPP' });
      else if (intended < today)
        violacoes.push({ razao: 'DPP é anterior ao momento presente.', propriedade: 'DPP' });
      const due = intended === undefined ? undefined : amountDueOn(cobv, intended);
      if (due === 'past_window' && DPP !== undefined)
        violacoes.push({
          razao: `DPP é posterior ao último dia em que a cobrança pode ser paga (${dateOf(payableWindow(cobv).lastDay)}).`,
          propriedade: 'DPP',
        });
      if (violacoes.length > 0) {
        sendProblem(
          res,
          400,
          'CobPayloadOperacaoInvalida',
          'Requisição inválida.',
          violacoes[0]!.razao,
          violacoes,
        );
        return;
      }
      if (due === undefined || due === 'past_window') {
        sendProblem(
          res,
          404,
          'CobPayloadNaoEncontrado',
          'Cobrança não encontrada para a location.',
          'A cobrança não pode mais ser paga: passou a validade após o vencimento.',
        );
        return;
      }
      const jws = await context.signer.sign(
        cobvPayload(cobv, due, context.settings, now),
        `http://${req.get('host')}${JWKS_PATH}`,
      );
      res.type('application/jose').send(jws);
    }),
  );
  return router;
}

interface CobvPaymentBody {
  valor?: string;
  pagador?: unknown;
  infoPagador?: string;
  /** The day the payer pays on (`YYYY-MM-DD`, Brasília), instead of the simulator's today; the clock is not moved. */
  data?: string;
}
const cobvPaymentSchema = Joi.object<CobvPaymentBody>({
  valor: pixAmount,
  data: isoDate,
  pagador: Joi.any(),
  infoPagador: freeText(140),
}).unknown(true);

const PAYMENT_REFUSALS = {
  not_active: 'não está ATIVA e não pode acolher outro pagamento',
  past_window: 'passou da validade após o vencimento e não pode mais ser paga',
  wrong_amount: 'pede outro valor na data de hoje (valor.final do payload)',
} as const;

/**
 * Sandbox-only operations on cobvs, not part of API Pix:
 * - `POST {prefix}/cobv/pagar/:txid` `{valor?, pagador?, infoPagador?, data?}`: a payer pays on the simulator's today
 *   (in Brasília), or on `data` (`YYYY-MM-DD`, not before the cobv was created: the Pix is dated noon that day, the
 *   simulator's clock untouched, so no other charge moves), what is due that day (`valor`, when given, must be that amount), as SANDBOX_PAYER unless told otherwise;
 *   refused when the cobv is not ATIVA or its payable window has passed. The Pix lists `componentesValor`, and the
 *   callback follows as for a cob.
 * - `POST {prefix}/cobv/:txid/remover`: the PSP removes the charge (status REMOVIDA_PELO_PSP).
 */
export function cobvSandboxRouter(context: SimulatorContext): Router {
  const router = express.Router();

  router.post(
    '/cobv/pagar/:txid',
    asyncHandler(async (req, res) => {
      const cobv = await findCobv(context, req, res);
      const body =
        cobv &&
        validateBody(res, cobvPaymentSchema, req.body, {
          name: 'CobVOperacaoInvalida',
          title: 'Pagamento inválido.',
          prefix: 'pagamento',
        });
      if (!cobv || !body) return;
      const pagador = body.pagador === undefined ? SANDBOX_PAYER : body.pagador;
      // Paid on the bank's date, whichever of its front ends moved it last, or on the day asked for (at noon there).
      await context.clock.follow();
      const payDay = body.data === undefined ? undefined : dayOf(body.data)!;
      if (payDay !== undefined && payDay < brasiliaDay(cobv.criacao)) {
        const detail = `Pix recusado: ${body.data} é anterior à criação da cobrança.`;
        sendProblem(res, 400, 'CobVOperacaoInvalida', 'Cobrança não pode ser paga.', detail);
        return;
      }
      const paid = await context.cobvs.receive(
        cobv.txid,
        body.valor === undefined ? undefined : toCentavos(body.valor),
        payDay === undefined ? context.clock.now() : new Date(payDay * 86_400_000 + 15 * 3_600_000),
        {
          ...(pagador === null ? {} : { pagador }),
          ...(body.infoPagador === undefined ? {} : { infoPagador: body.infoPagador }),
        },
      );
      if (typeof paid === 'string') {
        const status = (await context.cobvs.get(cobv.txid))?.status ?? cobv.status;
        const detail = `Pix recusado: a cobrança (status ${status}) ${PAYMENT_REFUSALS[paid]}.`;
        sendProblem(res, 400, 'CobVOperacaoInvalida', 'Cobrança não pode ser paga.', detail);
        return;
      }
      const webhook = await context.store.webhook(cobv.chave);
      if (webhook !== undefined) context.callbacks.dispatch(webhook.webhookUrl, [pixView(paid.pix)]);
      res.json(cobvView(paid.cobv, context.settings));
    }),
  );

  router.post(
    '/cobv/:txid/remover',
    asyncHandler(async (req, res) => {
      const cobv = await findCobv(context, req, res);
      if (!cobv) return;
      const removed = await context.cobvs.revise(
        cobv.txid,
        (current) => current,
        undefined,
        'REMOVIDA_PELO_PSP',
      );
      if (typeof removed !== 'string') return void res.json(cobvView(removed, context.settings));
      const status = (await context.cobvs.get(cobv.txid))?.status ?? cobv.status;
      sendProblem(res, 400, 'CobVOperacaoInvalida', 'Cobrança inválida.', `Cobrança já está ${status}.`);
    }),
  );

  return router;
}

const advanceSchema = Joi.object<{ dias?: number; segundos?: number }>({
  dias: Joi.number().integer().min(0).max(36_600),
  segundos: Joi.number().integer().min(0).max(3_162_240_000),
})
  .or('dias', 'segundos')
  .unknown(false);

/**
 * The simulator's clock, for tests (sandbox only): `GET {prefix}/sandbox/relogio` answers `{agora, hoje, avancoMs}`
 * (the simulator's now, its date in Brasília, how far ahead of the machine it is), `POST
 * {prefix}/sandbox/relogio/avancar` `{dias?, segundos?}` moves it forward (never back) and answers the same. The
 * offset is kept in the books: a restart resumes at the date reached.
 */
export function clockRouter(context: SimulatorContext): Router {
  const router = express.Router();
  const view = () => {
    const now = context.clock.now();
    return { agora: now.toISOString(), hoje: dateOf(brasiliaDay(now)), avancoMs: context.clock.offset() };
  };
  router.get(
    '/sandbox/relogio',
    asyncHandler(async (_req, res) => {
      await context.clock.follow();
      res.json(view());
    }),
  );
  router.post(
    '/sandbox/relogio/avancar',
    asyncHandler(async (req, res) => {
      const body = validateBody(res, advanceSchema, req.body, {
        name: 'RequisicaoInvalida',
        title: 'Requisição inválida.',
        prefix: 'relogio',
      });
      if (!body) return;
      await context.clock.advance(((body.dias ?? 0) * 86_400 + (body.segundos ?? 0)) * 1000);
      res.json(view());
    }),
  );
  return router;
}

function readTxid(req: Request, res: Response): string | undefined {
  return readPathId(req, res, {
    param: 'txid',
    pattern: TXID_PATTERN,
    problem: 'CobVOperacaoInvalida',
    title: 'Cobrança inválida.',
    detail: 'O txid deve ter de 26 a 35 caracteres [a-zA-Z0-9].',
    property: 'txid',
  });
}

/** The account's cobv the path names; another account's (books shared by two simulators) is not found. */
async function findCobv(
  context: SimulatorContext,
  req: Request,
  res: Response,
): Promise<StoredCobv | undefined> {
  const txid = readTxid(req, res);
  if (txid === undefined) return undefined;
  const cobv = await context.cobvs.get(txid);
  if (cobv && cobv.chave === context.settings.pixKey) return cobv;
  sendProblem(
    res,
    404,
    'CobVNaoEncontrada',
    'Cobrança não encontrada.',
    `Nenhuma cobrança com vencimento com txid ${txid}.`,
  );
  return undefined;
}

function refuse(res: Response, detail: string, violacoes: Violation[] = []): void {
  sendProblem(res, 400, 'CobVOperacaoInvalida', 'Cobrança inválida.', detail, violacoes);
}

async function refuseWrite(
  context: SimulatorContext,
  res: Response,
  txid: string,
  refusal: CobvWriteRefusal,
  locId?: number,
): Promise<void> {
  switch (refusal) {
    case 'not_active': {
      const status = (await context.cobvs.get(txid))?.status ?? 'desconhecido';
      return refuse(res, `Cobrança com status ${status} não pode ser alterada; somente cobranças ATIVA.`);
    }
    case 'txid_taken':
      return refuse(res, `O txid ${txid} já foi utilizado.`, [
        { razao: 'O campo cobv.txid encontra-se em uso.', propriedade: 'cobv.txid' },
      ]);
    case 'no_location':
      return refuse(res, `Nenhuma location com id ${locId}.`, [
        { razao: 'O location referenciado por cobv.loc.id inexiste.', propriedade: 'cobv.loc.id' },
      ]);
    case 'location_taken':
      return refuse(res, `A location ${locId} já está vinculada a outra cobrança.`, [
        {
          razao: 'O location referenciado por cobv.loc.id já está sendo utilizado por outra cobrança.',
          propriedade: 'cobv.loc.id',
        },
      ]);
    case 'location_kind':
      return refuse(res, `A location ${locId} é de uma cobrança imediata.`, [
        {
          razao: 'O location referenciado por cobv.loc.id apresenta tipo "cob" (deveria ser "cobv").',
          propriedade: 'cobv.loc.id',
        },
      ]);
  }
}

/** What the document refuses beyond the schema (its `CobVOperacaoInvalida` violations), for a cobv created on `createdOn`. */
function semanticViolations(context: SimulatorContext, data: CobvData, createdOn: number): Violation[] {
  const violacoes: Violation[] = [];
  const add = (razao: string, propriedade: string) => violacoes.push({ razao, propriedade });
  if (data.chave !== context.settings.pixKey)
    add(
      'O campo cobv.chave corresponde a uma conta que não pertence a este usuário recebedor.',
      'cobv.chave',
    );
  const due = dayOf(data.dataDeVencimento)!;
  if (due < createdOn)
    add(
      'O campo cobv.calendario.dataDeVencimento é anterior à data de criação da cobrança.',
      'cobv.calendario.dataDeVencimento',
    );
  const original = toCentavos(data.valorOriginal);
  // A fixed amount under the original; a percentage under 100%.
  const under = (modalidadeIsPercent: boolean, value: string) =>
    toCentavos(value) < (modalidadeIsPercent ? 10_000 : original);
  const { abatimento, desconto } = data.regras;
  // What it comes to, rounded as it is charged: 99.5 % of R$ 1,00 is the whole original.
  if (abatimento && abatimentoCentavos({ originalCentavos: original, abatimento }) >= original)
    add(
      'O objeto cobv.valor.abatimento representa um valor maior ou igual ao valor da cobrança original ou maior ou igual a 100%.',
      'cobv.valor.abatimento',
    );
  if (desconto) {
    const fixedDates = desconto.modalidade <= 2;
    const percent = desconto.modalidade === 2 || desconto.modalidade >= 5;
    if (fixedDates && desconto.valorPerc !== undefined)
      add(
        'O objeto cobv.valor.desconto apresenta modalidade no valor 1 ou 2, porém cobv.valor.desconto.valorPerc encontra-se preenchido.',
        'cobv.valor.desconto.valorPerc',
      );
    if (fixedDates && (desconto.descontoDataFixa ?? []).length === 0)
      add(
        'O objeto cobv.valor.desconto apresenta modalidade no valor 1 ou 2, porém o array cobv.valor.desconto.descontoDataFixa está vazio ou nulo.',
        'cobv.valor.desconto.descontoDataFixa',
      );
    if (!fixedDates && desconto.valorPerc === undefined)
      add(
        'O objeto cobv.valor.desconto apresenta modalidade nos valores de 3 a 6, porém o elemento cobv.valor.desconto.valorPerc não está preenchido.',
        'cobv.valor.desconto.valorPerc',
      );
    if (!fixedDates && desconto.descontoDataFixa !== undefined)
      add(
        'O objeto cobv.valor.desconto apresenta modalidade nos valores de 3 a 6, porém o elemento cobv.valor.desconto.descontoDataFixa encontra-se preenchido.',
        'cobv.valor.desconto.descontoDataFixa',
      );
    const values = [
      ...(desconto.valorPerc === undefined ? [] : [desconto.valorPerc]),
      ...(desconto.descontoDataFixa ?? []).map((entry) => entry.valorPerc),
    ];
    if (values.some((value) => !under(percent, value)))
      add(
        'O objeto cobv.valor.desconto apresenta algum elemento de desconto que representa um valor maior ou igual ao valor da cobrança original ou maior ou igual a 100%.',
        'cobv.valor.desconto',
      );
    if ((desconto.descontoDataFixa ?? []).some((entry) => dayOf(entry.data)! > due))
      add(
        'O objeto cobv.valor.desconto apresenta algum elemento cuja data seja posterior à data de vencimento representada por calendario.dataDeVencimento.',
        'cobv.valor.desconto.descontoDataFixa',
      );
  }
  // The most it can ask for (its last payable day: the whole fine and interest, no discount) must be an amount API
  // Pix can write (`\d{1,10}\.\d{2}`), or no payer could ever be told what to pay.
  if (violacoes.length === 0) {
    const most = amountDueOn(data, payableWindow(data).lastDay);
    if (most !== 'past_window' && most.final > MAX_PIX_AMOUNT_CENTAVOS)
      add(
        'O valor devido no último dia de pagamento, com multa e juros, excede o maior valor que a API Pix representa (9999999999.99).',
        'cobv.valor',
      );
  }
  return violacoes;
}

/** The largest amount API Pix writes (`\d{1,10}\.\d{2}`), in centavos. */
const MAX_PIX_AMOUNT_CENTAVOS = 999_999_999_999;

/** A revision the cobv, as it is when locked, would not hold: refused with the document's violations. */
class RevisionRefused extends Error {
  constructor(readonly violacoes: Violation[]) {
    super(violacoes[0]!.razao);
  }
}

/** The rules of a validated `valor`, as API Pix states them (only their own fields kept). */
function regrasOf(valor: Valor): CobvRegras {
  const plain = (value: { modalidade: number; valorPerc: string }) => ({
    modalidade: value.modalidade,
    valorPerc: value.valorPerc,
  });
  return {
    ...(valor.multa ? { multa: plain(valor.multa) } : {}),
    ...(valor.juros ? { juros: plain(valor.juros) } : {}),
    ...(valor.abatimento ? { abatimento: plain(valor.abatimento) } : {}),
    ...(valor.desconto
      ? {
          desconto: {
            modalidade: valor.desconto.modalidade,
            ...(valor.desconto.valorPerc === undefined ? {} : { valorPerc: valor.desconto.valorPerc }),
            ...(valor.desconto.descontoDataFixa === undefined
              ? {}
              : {
                  descontoDataFixa: valor.desconto.descontoDataFixa.map((entry) => ({
                    data: entry.data,
                    valorPerc: entry.valorPerc,
                  })),
                }),
          },
        }
      : {}),
  };
}

/** The debtor's own fields (an unknown one is not kept). */
function devedorOf(devedor: CobvDevedor): CobvDevedor {
  const keys = ['cpf', 'cnpj', 'nome', 'email', 'logradouro', 'cidade', 'uf', 'cep'] as const;
  return Object.fromEntries(
    keys.filter((key) => devedor[key] !== undefined).map((key) => [key, devedor[key]]),
  ) as unknown as CobvDevedor;
}

function infoOf(info: InfoAdicional): InfoAdicional {
  return { nome: info.nome, valor: info.valor };
}

// The states' codes IBGE starts a municipality's code with.
const UF_CODES = new Set([
  11, 12, 13, 14, 15, 16, 17, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 35, 41, 42, 43, 50, 51, 52, 53,
]);

function validCodMun(codMun: string): boolean {
  return /^\d{7}$/.test(codMun) && UF_CODES.has(Number(codMun.slice(0, 2)));
}
